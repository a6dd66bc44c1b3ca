#include "plugins/loader/shared_library_loader.h"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "plugins/loader/shared_library_plugin.h"

namespace trimtab::plugins {
namespace {

// Collects the registrations of one entry call; validated and committed after it returns.
struct Collector {
  std::string label;
  std::vector<const trimtab_executor_plugin_v1*> plugins;
  std::vector<std::string> errors;
};

bool ValidTypeName(const char* name) {
  if (name == nullptr || *name == '\0') return false;
  for (const char* p = name; *p != '\0'; ++p) {
    char c = *p;
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) return false;
  }
  return true;
}

int RegisterExecutor(void* context, const trimtab_executor_plugin_v1* plugin) {
  auto* collector = static_cast<Collector*>(context);
  if (plugin == nullptr) {
    collector->errors.push_back("register_executor called with NULL");
    return 1;
  }
  if (!ValidTypeName(plugin->name)) {
    collector->errors.push_back(std::string("plugin type name \"") +
                                (plugin->name ? plugin->name : "(null)") +
                                "\" is not [a-z0-9.-]+");
    return 1;
  }
  if (!plugin->create || !plugin->execute || !plugin->free_string || !plugin->destroy) {
    collector->errors.push_back(std::string("plugin type \"") + plugin->name +
                                "\" lacks create, execute, free_string or destroy");
    return 1;
  }
  collector->plugins.push_back(plugin);
  return 0;
}

core::ExecutorPluginFactory MakeFactory(std::shared_ptr<LibraryHandle> library,
                                        const trimtab_executor_plugin_v1* descriptor) {
  return [library, descriptor](const core::PluginIdentity& identity, const Json& config,
                               const std::string& path)
             -> StatusOr<std::unique_ptr<core::ExecutorPlugin>> {
    std::string text = config.dump(-1, ' ', false, Json::error_handler_t::replace);
    char* error = nullptr;
    void* instance = descriptor->create(text.c_str(), &error);
    if (instance == nullptr) {
      std::string message = error ? error : "no error message";
      if (error) descriptor->free_string(error);
      return InvalidArgumentError(path + ": plugin library " + library->path() + " (" +
                                  descriptor->name + ") refused the config: " + message);
    }
    if (error) descriptor->free_string(error);
    return std::unique_ptr<core::ExecutorPlugin>(
        std::make_unique<SharedLibraryPlugin>(identity, library, descriptor, instance));
  };
}

StatusOr<std::vector<std::string>> RegisterFromEntry(trimtab_plugin_init_fn init,
                                                     std::shared_ptr<LibraryHandle> library,
                                                     core::ExecutorPluginRegistry& registry) {
  const std::string& label = library->path();
  const std::string where = "plugin library " + label;
  uint32_t version = init(nullptr);
  if (version != TRIMTAB_PLUGIN_ABI_VERSION) {
    return FailedPreconditionError(where + ": ABI version " + std::to_string(version) +
                                   ", this trimtab supports " +
                                   std::to_string(TRIMTAB_PLUGIN_ABI_VERSION));
  }
  Collector collector{.label = label, .plugins = {}, .errors = {}};
  trimtab_plugin_host_v1 host{.abi_version = TRIMTAB_PLUGIN_ABI_VERSION,
                              .context = &collector,
                              .register_executor = &RegisterExecutor};
  uint32_t second = init(&host);
  if (second != TRIMTAB_PLUGIN_ABI_VERSION) {
    return FailedPreconditionError(where + ": ABI version changed from " +
                                   std::to_string(version) + " to " + std::to_string(second));
  }
  if (!collector.errors.empty()) {
    return InvalidArgumentError(where + ": " + collector.errors.front());
  }
  if (collector.plugins.empty()) {
    return InvalidArgumentError(where + ": registers no executor plugin");
  }
  std::set<std::string> names;
  for (const trimtab_executor_plugin_v1* p : collector.plugins) {
    if (!names.insert(p->name).second) {
      return AlreadyExistsError(where + ": plugin type \"" + std::string(p->name) +
                                "\" registered twice");
    }
    if (registry.Contains(p->name)) {
      return AlreadyExistsError(where + ": plugin type \"" + std::string(p->name) +
                                "\" is already registered from " + registry.OriginOf(p->name));
    }
  }
  std::vector<std::string> registered;
  for (const trimtab_executor_plugin_v1* p : collector.plugins) {
    TRIMTAB_RETURN_IF_ERROR(registry.Register(p->name, MakeFactory(library, p), label));
    registered.push_back(p->name);
  }
  return registered;
}

}  // namespace

StatusOr<std::vector<std::string>> LoadSharedLibraryPlugin(const std::string& path,
                                                           core::ExecutorPluginRegistry& registry) {
  dlerror();  // clear
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    return InvalidArgumentError("plugin library " + path + ": cannot load: " +
                                (error ? error : "unknown error"));
  }
  auto library = std::make_shared<LibraryHandle>(path, handle);
  dlerror();
  void* symbol = dlsym(handle, TRIMTAB_PLUGIN_ENTRY_SYMBOL);
  if (symbol == nullptr) {
    return InvalidArgumentError("plugin library " + path + ": missing entry point " +
                                TRIMTAB_PLUGIN_ENTRY_SYMBOL);
  }
  auto init = reinterpret_cast<trimtab_plugin_init_fn>(symbol);
  return RegisterFromEntry(init, std::move(library), registry);
}

StatusOr<std::vector<std::string>> RegisterStaticPlugin(trimtab_plugin_init_fn init,
                                                        const std::string& label,
                                                        core::ExecutorPluginRegistry& registry) {
  if (init == nullptr) return InvalidArgumentError("static plugin " + label + ": no entry");
  return RegisterFromEntry(init, std::make_shared<LibraryHandle>(label, nullptr), registry);
}

LoadReport LoadPluginDirectory(const std::string& directory,
                               core::ExecutorPluginRegistry& registry) {
  LoadReport report;
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::string> files;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".so" && it->is_regular_file()) files.push_back(it->path());
  }
  if (ec) {
    report.failures.push_back(
        InvalidArgumentError("plugin directory " + directory + ": " + ec.message()));
    return report;
  }
  std::sort(files.begin(), files.end());
  for (const std::string& file : files) {
    StatusOr<std::vector<std::string>> loaded = LoadSharedLibraryPlugin(file, registry);
    if (loaded.ok()) {
      report.loaded_files.push_back(file);
    } else {
      report.failures.push_back(loaded.status());
    }
  }
  return report;
}

}  // namespace trimtab::plugins
