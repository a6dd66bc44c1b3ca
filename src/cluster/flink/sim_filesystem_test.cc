#include "cluster/flink/sim_filesystem.h"

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>

namespace trimtab::sim::flink {
namespace {

namespace fs = std::filesystem;

class SimFileSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Two levels under a directory of this process's own, so that checks for escapes reach only
    // directories no other process writes to.
    base_ = fs::path(::testing::TempDir()) / ("simfs-" + std::to_string(::getpid())) /
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(base_);
    fs::create_directories(base_ / "data" / "flink-fs");
    // A file next to the data directory that an escape would reach.
    std::ofstream(base_ / "outside.txt") << "keep";
  }
  void TearDown() override { fs::remove_all(base_.parent_path()); }

  SimFileSystem Fs() const { return SimFileSystem((base_ / "data" / "flink-fs").string()); }

  fs::path base_;
};

TEST_F(SimFileSystemTest, MapsSchemesBelowTheRoot) {
  SimFileSystem sfs = Fs();
  const std::string root = (base_ / "data" / "flink-fs").string();
  EXPECT_EQ(*sfs.LocalPath("s3://bucket/cp/x"), root + "/s3/bucket/cp/x");
  EXPECT_EQ(*sfs.LocalPath("file:///flink/sp"), root + "/file/flink/sp");
  EXPECT_EQ(*sfs.LocalPath("/flink/./sp//a"), root + "/file/flink/sp/a");
  EXPECT_EQ(*sfs.LocalPath("HDFS://nn/a"), root + "/hdfs/nn/a");
  ASSERT_TRUE(sfs.WriteFile("s3://b/sp-1/_metadata", "m").ok());
  EXPECT_EQ(*sfs.ReadFile("s3://b/sp-1/_metadata"), "m");
}

// Issue 27: `../../x://y` as a scheme wrote outside the data directory.
TEST_F(SimFileSystemTest, Issue27DotDotInSchemeIsRefused) {
  SimFileSystem sfs = Fs();
  for (const char* uri : {"../../x://y", "..://y", "a/../../b://c", "../..://outside.txt",
                          "s3:x://y", ".://y", "-a://b"}) {
    auto p = sfs.LocalPath(uri);
    ASSERT_FALSE(p.ok()) << uri << " -> " << *p;
    EXPECT_NE(p.status().message().find(uri), std::string::npos) << p.status().message();
  }
  EXPECT_FALSE(sfs.WriteFile("../../x://y/_metadata", "x").ok());
  EXPECT_FALSE(fs::exists(base_ / "x"));
  EXPECT_FALSE(fs::exists(base_.parent_path() / "x"));
}

TEST_F(SimFileSystemTest, Issue27DotDotInPathIsRefused) {
  SimFileSystem sfs = Fs();
  for (const char* uri : {"s3://b/../../../../outside.txt", "/../..", "file:../x", "s3://.."}) {
    EXPECT_FALSE(sfs.LocalPath(uri).ok()) << uri;
  }
  EXPECT_FALSE(sfs.LocalPath(std::string("s3://b/a\0/../../x", 17)).ok());
}

// Issue 27: savepoint disposal deleted a tree outside the data directory.
TEST_F(SimFileSystemTest, Issue27RemoveAllStaysInside) {
  SimFileSystem sfs = Fs();
  EXPECT_FALSE(sfs.RemoveAll("../../..://outside.txt").ok());
  EXPECT_FALSE(sfs.RemoveAll("file:///../../../outside.txt").ok());
  EXPECT_TRUE(fs::exists(base_ / "outside.txt"));
  // A scheme's whole directory is not a savepoint.
  ASSERT_TRUE(sfs.WriteFile("s3://b/sp/_metadata", "m").ok());
  EXPECT_FALSE(sfs.RemoveAll("s3://").ok());
  EXPECT_FALSE(sfs.RemoveAll("s3:///").ok());
  EXPECT_TRUE(sfs.Exists("s3://b/sp/_metadata"));
  EXPECT_TRUE(sfs.RemoveAll("s3://b/sp").ok());
  EXPECT_FALSE(sfs.Exists("s3://b/sp/_metadata"));
}

TEST_F(SimFileSystemTest, SymlinkOutOfTheRootIsRefused) {
  SimFileSystem sfs = Fs();
  fs::create_directories(base_ / "data" / "flink-fs" / "s3");
  fs::create_directory_symlink(base_, base_ / "data" / "flink-fs" / "s3" / "evil");
  EXPECT_FALSE(sfs.LocalPath("s3://evil/outside.txt").ok());
  EXPECT_FALSE(sfs.RemoveAll("s3://evil").ok());
  EXPECT_TRUE(fs::exists(base_ / "outside.txt"));
}

}  // namespace
}  // namespace trimtab::sim::flink
