#include "cluster/apiserver/exec/tar_archive.h"

#include <gtest/gtest.h>

namespace trimtab::cluster::exec {
namespace {

TEST(TarArchiveTest, RoundTripsFilesDirectoriesAndLongNames) {
  const std::string deep(150, 'd');
  const std::string unsplittable(130, 'u');
  std::vector<TarEntry> in = {
      {.name = "etc", .directory = true, .mode = 0755, .mtime = 1700000000},
      {.name = "etc/hosts", .mode = 0644, .mtime = 1700000001, .data = "127.0.0.1 localhost\n"},
      {.name = "a/" + deep + "/file", .data = std::string(1000, 'x')},
      {.name = unsplittable, .data = "pax"},
      {.name = "empty"},
  };
  const std::string archive = WriteTar(in);
  EXPECT_EQ(archive.size() % 512, 0u);
  StatusOr<std::vector<TarEntry>> out = ReadTar(archive);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), in.size());
  EXPECT_EQ((*out)[0].name, "etc/");
  EXPECT_TRUE((*out)[0].directory);
  EXPECT_EQ((*out)[0].mode, 0755u);
  EXPECT_EQ((*out)[1].name, "etc/hosts");
  EXPECT_EQ((*out)[1].data, "127.0.0.1 localhost\n");
  EXPECT_EQ((*out)[1].mtime, 1700000001);
  EXPECT_EQ((*out)[2].name, "a/" + deep + "/file");
  EXPECT_EQ((*out)[2].data.size(), 1000u);
  EXPECT_EQ((*out)[3].name, unsplittable);
  EXPECT_EQ((*out)[3].data, "pax");
  EXPECT_EQ((*out)[4].data, "");
}

TEST(TarArchiveTest, BadInputIsAnErrorNamingTheEntry) {
  std::string archive = WriteTar({{.name = "f", .data = "hello"}});
  std::string corrupt = archive;
  corrupt[0] = 'g';  // the checksum no longer matches
  StatusOr<std::vector<TarEntry>> r = ReadTar(corrupt);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("entry \"g\": bad header checksum"), std::string::npos);
  r = ReadTar(archive.substr(0, 515));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("truncated"), std::string::npos);
  // A symbolic link is refused.
  std::string link = archive;
  link[156] = '2';
  unsigned sum = 0;
  for (size_t i = 0; i < 512; ++i) sum += (i >= 148 && i < 156) ? ' ' : (unsigned char)link[i];
  char chk[8];
  std::snprintf(chk, sizeof chk, "%06o", sum);
  link.replace(148, 6, chk, 6);
  r = ReadTar(link);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("links"), std::string::npos) << r.status().message();
  EXPECT_TRUE(ReadTar("").ok());
}

}  // namespace
}  // namespace trimtab::cluster::exec
