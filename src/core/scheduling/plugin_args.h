// PluginArgs: typed reads of a plugin's or action's `arguments` map, with errors naming the
// field ("tiers[1].plugins[0].arguments.overcommit-factor: expected a number"). Volcano logs
// and ignores a value of the wrong type; here it is an error, and so is a key the plugin does
// not know (Accept() lists the Volcano keys a plugin takes but this engine does not act on).
//
// Thread-safety: used while one plugin is created.
#pragma once

#include <initializer_list>
#include <set>
#include <string>
#include <string_view>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::core::scheduling {

class PluginArgs {
 public:
  PluginArgs(const Json& args, std::string path) : args_(args), path_(std::move(path)) {}

  // An integer (Volcano's GetInt).
  Status Int(std::string_view key, int* out);
  // A number, integer or not (GetFloat64).
  Status Float(std::string_view key, double* out);
  // A boolean, or a string Go's ParseBool accepts (GetBool).
  Status Bool(std::string_view key, bool* out);
  Status String(std::string_view key, std::string* out);
  // Marks keys as known without reading them.
  void Accept(std::initializer_list<std::string_view> keys);
  // Marks every key with this prefix as known (binpack.resources.<name>).
  void AcceptPrefix(std::string_view prefix);
  bool Has(std::string_view key) const;
  std::string FieldPath(std::string_view key) const { return path_ + "." + std::string(key); }
  // Fails naming the first key nothing read or accepted.
  Status NoUnknownKeys() const;

 private:
  const Json* Find(std::string_view key);
  const Json& args_;
  std::string path_;
  std::set<std::string, std::less<>> seen_;
  std::set<std::string, std::less<>> prefixes_;
};

}  // namespace trimtab::core::scheduling
