// The dashboard page's files (assets/index.html, app.js, app.css), compiled into the binary by
// cmake/EmbedTextFiles.cmake so that the page works without network access or files on disk.
//
// Thread-safety: immutable data.
#pragma once

#include <string_view>
#include <vector>

#include "operator/wiring/bundled_crds.h"

namespace trimtab::dashboard {

using op::EmbeddedFile;

const std::vector<EmbeddedFile>& DashboardAssets();

}  // namespace trimtab::dashboard
