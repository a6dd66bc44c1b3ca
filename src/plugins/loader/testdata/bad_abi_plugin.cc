// Test plugin: reports an ABI version this trimtab does not speak; must be refused at load.
#include "trimtab/plugin.h"

namespace {

uint32_t FutureInit(const trimtab_plugin_host_v1* host) { return TRIMTAB_PLUGIN_ABI_VERSION + 41; }

}  // namespace

TRIMTAB_PLUGIN_ENTRY(FutureInit)
