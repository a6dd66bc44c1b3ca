#include "cluster/runtime/container_script.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "cluster/runtime/object_util.h"
#include "common/duration.h"

namespace trimtab::cluster::runtime {
namespace {

// The annotation value for `key`: container-scoped first, then pod-wide.
std::optional<std::string> Annotation(const Json& pod, const std::string& container,
                                      std::string_view key) {
  const Json& annotations = At(pod, {"metadata", "annotations"});
  if (!annotations.is_object()) return std::nullopt;
  const std::string base = std::string(kAnnotationPrefix) + std::string(key);
  for (const std::string& name : {base + "." + container, base}) {
    auto it = annotations.find(name);
    if (it != annotations.end() && it->is_string()) return it->get<std::string>();
  }
  return std::nullopt;
}

StatusOr<Duration> ParseDurationAnnotation(std::string_view key, const std::string& value) {
  // Go durations ("1m30s"); a bare number is seconds.
  std::string text = value;
  if (!text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) || c == '.';
      })) {
    text += "s";
  }
  auto d = ParseGoDuration(text);
  if (!d.ok() || d->count() < 0) {
    return InvalidArgumentError("annotation " + std::string(kAnnotationPrefix) +
                                std::string(key) + ": invalid duration \"" + value + "\"");
  }
  return std::chrono::duration_cast<Duration>(*d);
}

// Words of one simple command; quotes group and are removed.
std::vector<std::string> SplitWords(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        cur.push_back(c);
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) out.push_back(std::move(cur));
      cur.clear();
      in_word = false;
      continue;
    }
    cur.push_back(c);
    in_word = true;
  }
  if (in_word) out.push_back(std::move(cur));
  return out;
}

// The simple commands of a shell script separated by `;`, `&&` or newlines (quotes respected).
std::vector<std::vector<std::string>> SplitScript(std::string_view script) {
  std::vector<std::vector<std::string>> out;
  std::string cur;
  char quote = 0;
  auto flush = [&] {
    auto words = SplitWords(cur);
    if (!words.empty()) out.push_back(std::move(words));
    cur.clear();
  };
  for (size_t i = 0; i < script.size(); ++i) {
    char c = script[i];
    if (quote) {
      if (c == quote) quote = 0;
      cur.push_back(c);
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      cur.push_back(c);
    } else if (c == ';' || c == '\n') {
      flush();
    } else if (c == '&' && i + 1 < script.size() && script[i + 1] == '&') {
      flush();
      ++i;
    } else {
      cur.push_back(c);
    }
  }
  flush();
  return out;
}

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::optional<Duration> SleepDuration(const std::string& arg) {
  if (arg == "infinity" || arg == "inf") return std::nullopt;
  double factor = 1;
  std::string number = arg;
  if (!number.empty() && std::isalpha(static_cast<unsigned char>(number.back()))) {
    char unit = number.back();
    number.pop_back();
    factor = unit == 'm' ? 60 : unit == 'h' ? 3600 : unit == 'd' ? 86400 : 1;
  }
  try {
    double seconds = std::stod(number) * factor;
    return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(seconds));
  } catch (...) {
    return std::nullopt;
  }
}

// Evaluates the command; fills exit_after/exit_code/output_lines.
void Interpret(const std::vector<std::vector<std::string>>& commands, ContainerScript* out) {
  Duration elapsed{0};
  int status = 0;
  for (const auto& words : commands) {
    const std::string cmd = Basename(words[0]);
    if (cmd == "true" || cmd == ":") {
      status = 0;
    } else if (cmd == "false") {
      status = 1;
    } else if (cmd == "exit") {
      status = words.size() > 1 ? std::atoi(words[1].c_str()) : status;
      out->exit_after = elapsed;
      out->exit_code = status & 0xff;
      return;
    } else if (cmd == "sleep") {
      auto d = words.size() > 1 ? SleepDuration(words[1]) : std::optional<Duration>();
      if (!d) return;  // sleep infinity: runs until stopped
      elapsed += *d;
      status = 0;
    } else if (cmd == "echo") {
      std::string line;
      for (size_t i = 1; i < words.size(); ++i) line += (i > 1 ? " " : "") + words[i];
      out->output_lines.push_back(line);
      status = 0;
    } else {
      return;  // a server or anything unknown: runs until stopped
    }
  }
  out->exit_after = elapsed;
  out->exit_code = status;
}

}  // namespace

StatusOr<ContainerScript> ReadContainerScript(const Json& pod, const Json& container) {
  ContainerScript script;
  const std::string name = Str(container, {"name"});
  std::vector<std::string> argv;
  for (const char* part : {"command", "args"}) {
    const Json& list = At(container, {part});
    if (!list.is_array()) continue;
    for (const Json& a : list) argv.push_back(a.is_string() ? a.get<std::string>() : a.dump());
  }
  if (!argv.empty()) {
    const std::string shell = Basename(argv[0]);
    bool is_shell = shell == "sh" || shell == "bash" || shell == "ash" || shell == "dash";
    if (is_shell && argv.size() >= 3 && argv[1] == "-c") {
      Interpret(SplitScript(argv[2]), &script);
    } else {
      Interpret({argv}, &script);
    }
  }
  const Json& ports = At(container, {"ports"});
  if (ports.is_array()) {
    for (const Json& p : ports) {
      if (Str(p, {"protocol"}, "TCP") == "TCP" && At(p, {"containerPort"}).is_number_integer()) {
        script.tcp_ports.push_back(At(p, {"containerPort"}).get<int>());
      }
    }
  }

  if (auto v = Annotation(pod, name, "start-delay")) {
    TRIMTAB_ASSIGN_OR_RETURN(script.start_delay, ParseDurationAnnotation("start-delay", *v));
  }
  auto exit_after = Annotation(pod, name, "exit-after");
  auto exit_code = Annotation(pod, name, "exit-code");
  if (exit_after) {
    TRIMTAB_ASSIGN_OR_RETURN(script.exit_after, ParseDurationAnnotation("exit-after", *exit_after));
    script.exit_code = 0;
  }
  if (exit_code) {
    char* end = nullptr;
    long code = std::strtol(exit_code->c_str(), &end, 10);
    if (exit_code->empty() || *end != '\0' || code < 0 || code > 255) {
      return InvalidArgumentError("annotation trimtab.dev/exit-code: \"" + *exit_code +
                                  "\" is not an exit code (0-255)");
    }
    script.exit_code = static_cast<int>(code);
    if (!exit_after) script.exit_after = Duration{0};
  }
  if (auto v = Annotation(pod, name, "fail-readiness")) {
    if (*v != "true" && *v != "false") {
      return InvalidArgumentError("annotation trimtab.dev/fail-readiness: \"" + *v +
                                  "\" must be \"true\" or \"false\"");
    }
    script.never_ready = *v == "true";
  }
  if (auto v = Annotation(pod, name, "termination-delay")) {
    TRIMTAB_ASSIGN_OR_RETURN(script.termination_delay,
                             ParseDurationAnnotation("termination-delay", *v));
  }
  if (auto v = Annotation(pod, name, "serve")) {
    if (*v != "http-echo") {
      return InvalidArgumentError("annotation trimtab.dev/serve: \"" + *v +
                                  "\" is not known (supported: http-echo)");
    }
    script.serve_http_echo = true;
  }
  return script;
}

}  // namespace trimtab::cluster::runtime
