# Authentication and authorization of the local API server (this folder's README.md): the RBAC
# kinds join the API surface, the authorizer, tokens and the AuthLayer join the request-serving
# library. Included by ../CMakeLists.txt after both libraries are declared.
target_sources(trimtab_cluster_apiserver_surface PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/rbac_types.cc)
target_sources(trimtab_cluster_apiserver PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/sha256.cc
  ${CMAKE_CURRENT_LIST_DIR}/service_account_tokens.cc
  ${CMAKE_CURRENT_LIST_DIR}/rbac_authorizer.cc
  ${CMAKE_CURRENT_LIST_DIR}/rbac_validation.cc
  ${CMAKE_CURRENT_LIST_DIR}/protobuf_auth.cc
  ${CMAKE_CURRENT_LIST_DIR}/auth_layer.cc
  ${CMAKE_CURRENT_LIST_DIR}/host_check.cc
  ${CMAKE_CURRENT_LIST_DIR}/local_credentials.cc)
target_link_libraries(trimtab_cluster_apiserver PUBLIC trimtab::adapters_http_x509)

trimtab_cc_test(NAME cluster_apiserver_rbac_authorizer_test
                SRCS ${CMAKE_CURRENT_LIST_DIR}/rbac_authorizer_test.cc
                DEPS trimtab::cluster_apiserver)
trimtab_cc_test(NAME cluster_apiserver_service_account_tokens_test
                SRCS ${CMAKE_CURRENT_LIST_DIR}/service_account_tokens_test.cc
                DEPS trimtab::cluster_apiserver)
trimtab_cc_test(NAME cluster_apiserver_auth_layer_test
                SRCS ${CMAKE_CURRENT_LIST_DIR}/auth_layer_test.cc
                DEPS trimtab::cluster_apiserver trimtab::adapters_http_test_client)
if(TARGET trimtab_adapters_http_client)
  trimtab_cc_test(NAME cluster_apiserver_secure_server_test
                  SRCS ${CMAKE_CURRENT_LIST_DIR}/secure_server_test.cc
                  DEPS trimtab::cluster_apiserver trimtab::adapters_http_client
                       trimtab::adapters_http_test_client)
  trimtab_cc_test(NAME cluster_apiserver_client_certificate_test
                  SRCS ${CMAKE_CURRENT_LIST_DIR}/client_certificate_test.cc
                  DEPS trimtab::cluster_apiserver trimtab::adapters_http_client)
endif()
