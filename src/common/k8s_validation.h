// The string rules of Kubernetes' apimachinery (k8s.io/apimachinery/pkg/util/validation) with
// the same messages, for everything that checks names, label keys and values, annotation and
// finalizer names, config keys and ports: the local API server's validation, selectors, the
// operator. Each function returns the list of what is wrong (empty = valid), worded as
// apimachinery words it, so callers can build "Invalid value: ...: <message>" field errors.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trimtab::k8s {

inline constexpr size_t kDns1123LabelMaxLength = 63;
inline constexpr size_t kDns1123SubdomainMaxLength = 253;
inline constexpr size_t kQualifiedNameMaxLength = 63;
inline constexpr size_t kLabelValueMaxLength = 63;
inline constexpr size_t kConfigKeyMaxLength = 253;
// Total size of metadata.annotations (keys + values), ObjectMeta validation.
inline constexpr size_t kTotalAnnotationSizeLimit = 256 * 1024;

// "[a-z0-9]([-a-z0-9]*[a-z0-9])?", at most 63.
std::vector<std::string> IsDns1123Label(std::string_view value);
// Dot-separated DNS-1123 labels, at most 253.
std::vector<std::string> IsDns1123Subdomain(std::string_view value);
// "[prefix/]name": prefix a DNS-1123 subdomain, name "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
// of at most 63 (label keys, annotation keys, finalizers).
std::vector<std::string> IsQualifiedName(std::string_view value);
// Empty, or a qualified name part of at most 63.
std::vector<std::string> IsValidLabelValue(std::string_view value);
// ConfigMap and Secret keys: "[-._a-zA-Z0-9]+", at most 253, not "." or "..", not "..*".
std::vector<std::string> IsConfigMapKey(std::string_view value);
// 1..65535.
std::vector<std::string> IsValidPortNum(int64_t port);
// IANA_SVC_NAME: at most 15, lower case alphanumerics and '-', at least one letter, no '--',
// not starting or ending with '-'.
std::vector<std::string> IsValidPortName(std::string_view name);

// apimachinery's RegexError: "<msg> (e.g. 'a',  or 'b', regex used for validation is '<re>')".
std::string RegexError(std::string_view msg, std::string_view regex,
                       const std::vector<std::string_view>& examples);

}  // namespace trimtab::k8s
