// The example shared-library plugin ("example-cap"), written only against include/trimtab/
// plugin.h. It is built twice: as the loadable module trimtab_example_plugin.so (loaded at run
// time by the loader tests) and, with TRIMTAB_PLUGIN_STATIC, into the static library
// trimtab::plugin_example_static whose entry function is declared here, so a program can register
// the same source without a .so (src/plugins/loader RegisterStaticPlugin).
//
// Behaviour: config {"maxParallelism": N} (required, >= 1). Every scale-up above N is lowered to
// N; entries left without a change are dropped; nothing left -> veto. Counts its calls per job in
// its plugin state ({"calls": n}).
#pragma once

#include "trimtab/plugin.h"

extern "C" uint32_t trimtab_example_plugin_init(const trimtab_plugin_host_v1* host);
