/* trimtab shared-library plugin ABI, version 1.
 *
 * A shared-library plugin adds executor plugin types to trimtab's scaling chain (DESIGN.md §2,
 * stage 5) without being compiled into trimtab. It is a C ABI: only C types cross it, every
 * document crosses as NUL-terminated UTF-8 JSON, and nothing throws across it. docs/plugins.md
 * describes the JSON documents and has a complete example.
 *
 * Loading (src/plugins/loader): trimtab dlopen()s the file with RTLD_NOW | RTLD_LOCAL, looks up
 * the one exported entry point TRIMTAB_PLUGIN_ENTRY_SYMBOL, and calls it twice:
 *
 *   1. entry(NULL)  -> the plugin returns the ABI version it was built against
 *                      (TRIMTAB_PLUGIN_ABI_VERSION) and does nothing else. A different version
 *                      refuses the file.
 *   2. entry(host)  -> the plugin calls host->register_executor once per executor plugin type it
 *                      provides, and returns its ABI version again.
 *
 * Then, per configured instance ({"type": "<name>", "config": {...}} in the chain config):
 *   create(config_json, &error)          -> opaque instance, or NULL with *error set
 *   execute(instance, request_json)      -> response JSON (owned by the plugin), or NULL
 *   free_string(s)                       -> releases a string returned by create/execute
 *   destroy(instance)                    -> at shutdown
 *
 * Request:  {"plugin", "context": {...}, "summaries": {...}, "pluginState": ...}
 * Response: {"verdict": "approve"|"modify"|"veto", "summaries": {...}, "reason": "...",
 *            "pluginState": ...}
 * A NULL, unparsable or wrongly shaped response is a veto whose reason names the file.
 *
 * Threading: execute may be called from several threads at once, for different jobs; a plugin
 * that keeps mutable state guards it. create/destroy are called from one thread.
 *
 * Lifetime: the strings and the descriptor passed to register_executor must stay valid until the
 * library is unloaded (static storage is the simple choice). The host never unloads a library
 * while instances exist.
 */
#ifndef TRIMTAB_PLUGIN_H_
#define TRIMTAB_PLUGIN_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped on any incompatible change of the structs or of the JSON documents. */
#define TRIMTAB_PLUGIN_ABI_VERSION 1u

/* The name of the entry point every plugin library exports. */
#define TRIMTAB_PLUGIN_ENTRY_SYMBOL "trimtab_plugin_init"

/* One executor plugin type. */
typedef struct trimtab_executor_plugin_v1 {
  /* Plugin type name used in the chain config, e.g. "example-cap": [a-z0-9.-]+, unique. */
  const char* name;
  /* Parses and validates `config_json` (a JSON object). On failure returns NULL and sets *error to
   * a message allocated by the plugin (released with free_string), naming the bad field. */
  void* (*create)(const char* config_json, char** error);
  /* Decides on one request; returns the response JSON allocated by the plugin, or NULL. */
  char* (*execute)(void* instance, const char* request_json);
  /* Releases a string returned by create (error) or execute. */
  void (*free_string)(char* s);
  /* Releases an instance returned by create. */
  void (*destroy)(void* instance);
} trimtab_executor_plugin_v1;

/* What the host offers to the entry point. */
typedef struct trimtab_plugin_host_v1 {
  uint32_t abi_version; /* the host's TRIMTAB_PLUGIN_ABI_VERSION */
  void* context;        /* pass back unchanged */
  /* Registers one plugin type; returns 0 on success, non-zero when refused (bad or duplicate
   * name, missing function). The host copies nothing: `plugin` must outlive the library. */
  int (*register_executor)(void* context, const trimtab_executor_plugin_v1* plugin);
} trimtab_plugin_host_v1;

/* The entry point. With host == NULL: return TRIMTAB_PLUGIN_ABI_VERSION only. Otherwise register
 * the plugin types and return TRIMTAB_PLUGIN_ABI_VERSION. */
typedef uint32_t (*trimtab_plugin_init_fn)(const trimtab_plugin_host_v1* host);

#if !defined(TRIMTAB_PLUGIN_STATIC)
/* Declared here so that the definition made by TRIMTAB_PLUGIN_ENTRY has C linkage in C++. */
__attribute__((visibility("default"))) uint32_t trimtab_plugin_init(
    const trimtab_plugin_host_v1* host);
#endif

/* Declares the entry point. A plugin library writes, at file scope:
 *
 *   TRIMTAB_PLUGIN_ENTRY(my_init)
 *
 * where `uint32_t my_init(const trimtab_plugin_host_v1* host)` is its own function. Built as a
 * shared library this exports trimtab_plugin_init; compiled with TRIMTAB_PLUGIN_STATIC defined
 * (to link the same source into a program) it exports nothing and the program passes `my_init`
 * to the loader's static registration instead. */
#if defined(TRIMTAB_PLUGIN_STATIC)
#define TRIMTAB_PLUGIN_ENTRY(fn)
#else
#define TRIMTAB_PLUGIN_ENTRY(fn)                                                       \
  __attribute__((visibility("default"))) uint32_t trimtab_plugin_init(                 \
      const trimtab_plugin_host_v1* host) {                                            \
    return fn(host);                                                                   \
  }
#endif

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* TRIMTAB_PLUGIN_H_ */
