# The process pod runner (process_pod_runner.h): pods of the trimtab image run the real binary.
# Included by CMakeLists.txt after trimtab_cluster_runtime is declared.
target_sources(trimtab_cluster_runtime PRIVATE ${CMAKE_CURRENT_LIST_DIR}/process_pod_runner.cc)
trimtab_cc_test(NAME cluster_runtime_process_pod_runner_test
                SRCS ${CMAKE_CURRENT_LIST_DIR}/process_pod_runner_test.cc
                DEPS trimtab::cluster_runtime trimtab::cluster_apiserver
                     trimtab::adapters_http_test_client)
