#include "plugins/loader/shared_library_plugin.h"

#include <dlfcn.h>

#include <nlohmann/json.hpp>

#include "core/chain/chain_json.h"

namespace trimtab::plugins {

LibraryHandle::~LibraryHandle() {
  if (handle_ != nullptr) dlclose(handle_);
}

SharedLibraryPlugin::~SharedLibraryPlugin() {
  if (instance_ != nullptr) descriptor_->destroy(instance_);
}

StatusOr<core::ExecutorResult> SharedLibraryPlugin::Execute(const core::ExecutorContext& context,
                                                            const core::ScalingSummaries& summaries,
                                                            core::CycleState& cycle,
                                                            Json& plugin_state) {
  const std::string where = "plugin library " + library_->path() + " (" + descriptor_->name + ")";
  std::string request = core::MakePluginRequest(name(), context, summaries, plugin_state)
                            .dump(-1, ' ', false, Json::error_handler_t::replace);
  char* raw = descriptor_->execute(instance_, request.c_str());
  if (raw == nullptr) return InternalError(where + ": execute returned no response");
  std::string text(raw);
  descriptor_->free_string(raw);
  StatusOr<Json> response = ParseJson(text, where + " response");
  if (!response.ok()) return response.status();
  StatusOr<core::PluginResponse> decoded =
      core::PluginResponseFromJson(*response, "response");
  if (!decoded.ok()) return decoded.status().WithContext(where);
  if (decoded->plugin_state_json) plugin_state = Json::parse(*decoded->plugin_state_json);
  return std::move(decoded->result);
}

}  // namespace trimtab::plugins
