# The API surface of the local API server: discovery, OpenAPI, built-in kinds, CRD conversion and
# structural-schema validation, Table output and strategic merge patch. Included by the parent
# folder's CMakeLists.txt; the request-serving library links trimtab::cluster_apiserver_surface.
set(TRIMTAB_APISERVER_SURFACE_SRCS
  resource_registry.cc
  schema_builder.cc
  builtin_schemas.cc
  builtin_types.cc
  workload_types.cc
  discovery.cc
  openapi.cc
  crd.cc
  structural_schema.cc
  builtin_validation.cc
  jsonpath.cc
  builtin_printers.cc
  hpa_conversion.cc
  table.cc
  strategic_merge.cc)
list(TRANSFORM TRIMTAB_APISERVER_SURFACE_SRCS PREPEND "${CMAKE_CURRENT_LIST_DIR}/")

trimtab_cc_library(
  NAME cluster_apiserver_surface
  SRCS ${TRIMTAB_APISERVER_SURFACE_SRCS}
  DEPS trimtab::common)

set(TRIMTAB_APISERVER_SURFACE_TESTS
  builtin_types_test discovery_test openapi_test crd_test structural_schema_test table_test
  strategic_merge_test hpa_conversion_test)
foreach(test IN LISTS TRIMTAB_APISERVER_SURFACE_TESTS)
  trimtab_cc_test(NAME cluster_apiserver_${test} SRCS ${CMAKE_CURRENT_LIST_DIR}/${test}.cc
                  DEPS trimtab::cluster_apiserver_surface)
endforeach()
