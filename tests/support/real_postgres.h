// RealPostgres: Debian's PostgreSQL server (package postgresql, installed by
// scripts/install-deps.sh) started for a test in a temporary directory: initdb, then pg_ctl start
// on a free loopback port with trust authentication for the user "trimtab", and pg_ctl stop when
// the object goes. Nothing outside the directory is touched.
//
// PostgreSQL refuses to run as root: under root the server runs as the unprivileged user
// "postgres" that the Debian package creates (through runuser), and the directory is handed to
// that user.
//
// Usage:
//   StatusOr<std::string> bin = RealPostgres::FindBinDir();
//   if (!bin.ok()) GTEST_SKIP() << bin.status().message();
//   TRIMTAB_ASSIGN_OR_RETURN(auto pg, RealPostgres::Start(*bin, dir));
//   TRIMTAB_RETURN_IF_ERROR(pg->CreateDatabase("contract_1"));
//   ... pqxx::connection c(pg->ConnectionString("contract_1")); ...
//
// Thread-safety: one owner.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "common/status.h"

namespace trimtab::testing {

class RealPostgres {
 public:
  // The directory with initdb and pg_ctl: $TRIMTAB_POSTGRES_BINDIR, else the newest
  // /usr/lib/postgresql/<version>/bin (Debian's layout), else the directory of an initdb on PATH.
  // NotFound, naming the package, when there is none.
  static StatusOr<std::string> FindBinDir();
  // initdb into `dir`/data and start the server; waits until it accepts connections (30 s).
  // The server log is `dir`/postgres.log.
  static StatusOr<std::unique_ptr<RealPostgres>> Start(const std::string& bin_dir,
                                                       const std::filesystem::path& dir);
  ~RealPostgres();  // pg_ctl stop -m immediate, then the directory is removed

  // libpq connection string for `dbname` ("postgres" always exists).
  std::string ConnectionString(const std::string& dbname = "postgres") const;
  int port() const { return port_; }
  // CREATE DATABASE `name` (a plain identifier).
  Status CreateDatabase(const std::string& name) const;

 private:
  RealPostgres(std::string bin_dir, std::filesystem::path dir, int port)
      : bin_dir_(std::move(bin_dir)), dir_(std::move(dir)), port_(port) {}

  std::string bin_dir_;
  std::filesystem::path dir_;
  int port_;
  bool started_ = false;
};

}  // namespace trimtab::testing
