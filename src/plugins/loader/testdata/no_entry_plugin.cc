// Test plugin: exports a function, but not the entry point; must be refused at load.
#include <cstdint>

extern "C" __attribute__((visibility("default"))) uint32_t trimtab_plugin_start() { return 1; }
