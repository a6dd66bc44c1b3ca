// Protobuf request bodies of the authentication and authorization APIs, which kubectl's typed
// clients send as protobuf: SelfSubjectAccessReview (`kubectl auth can-i`),
// SelfSubjectRulesReview (`kubectl auth can-i --list`), SubjectAccessReview,
// LocalSubjectAccessReview, SelfSubjectReview (`kubectl auth whoami`), TokenReview and
// TokenRequest (`kubectl create token`). Field numbers are those of k8s.io/api
// authorization/v1 and authentication/v1 generated.proto; metadata (field 1) is not read: these
// objects are never stored.
//
// Thread-safety: pure function.
#pragma once

#include <optional>
#include <string_view>

#include "common/json.h"
#include "common/status.h"

namespace trimtab::cluster::auth {

// The object as JSON, or nullopt when `api_version`/`kind` is none of the kinds above.
// Malformed protobuf is InvalidArgument.
std::optional<StatusOr<Json>> DecodeAuthProtobuf(std::string_view api_version,
                                                 std::string_view kind, std::string_view raw);

}  // namespace trimtab::cluster::auth
