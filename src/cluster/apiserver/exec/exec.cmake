# `kubectl exec` and `kubectl cp` for the simulated containers (exec/): the channel protocol over
# a WebSocket, the sandbox every exec of a container shares, its shell, file system and tar.
trimtab_cc_library(
  NAME cluster_apiserver_exec
  SRCS ${CMAKE_CURRENT_LIST_DIR}/pod_exec.cc ${CMAKE_CURRENT_LIST_DIR}/container_sandbox.cc
       ${CMAKE_CURRENT_LIST_DIR}/shell_script.cc ${CMAKE_CURRENT_LIST_DIR}/sandbox_fs.cc
       ${CMAKE_CURRENT_LIST_DIR}/tar_archive.cc
  DEPS trimtab::common trimtab::adapters_http_server)

trimtab_cc_test(NAME cluster_apiserver_exec_test
                SRCS ${CMAKE_CURRENT_LIST_DIR}/container_sandbox_test.cc
                     ${CMAKE_CURRENT_LIST_DIR}/tar_archive_test.cc
                DEPS trimtab::cluster_apiserver_exec)
