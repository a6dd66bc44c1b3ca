#include "cluster/apiserver/auth/service_account_tokens.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "cluster/apiserver/auth/sha256.h"

namespace trimtab::cluster::auth {
namespace {

TEST(Sha256Test, FipsVectors) {
  EXPECT_EQ(HexDigest(Sha256("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(HexDigest(Sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(HexDigest(Sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(HexDigest(Sha256(std::string(1000000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256Test, HmacRfc4231) {
  EXPECT_EQ(HexDigest(HmacSha256(std::string(20, '\x0b'), "Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
  EXPECT_EQ(HexDigest(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // A key longer than the block size is hashed first (test case 6).
  EXPECT_EQ(HexDigest(HmacSha256(std::string(131, '\xaa'),
                                 "Test Using Larger Than Block-Size Key - Hash Key First")),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TokenClaims Claims(int64_t now) {
  TokenClaims c;
  c.ns = "trimtab-system";
  c.service_account = "trimtab-operator";
  c.service_account_uid = "sa-uid";
  c.pod_name = "op-1";
  c.pod_uid = "pod-uid";
  c.issued_at = now;
  c.expires_at = now + 3600;
  return c;
}

TEST(TokenIssuerTest, RoundTripAndRejections) {
  TokenIssuer issuer(std::string(32, 'k'));
  const TimePoint now = FromUnixMillis(1'700'000'000'000);
  const std::string token = issuer.Issue(Claims(1'700'000'000));
  auto claims = issuer.Verify(token, now);
  ASSERT_TRUE(claims.ok()) << claims.status().ToString();
  EXPECT_EQ(claims->ns, "trimtab-system");
  EXPECT_EQ(claims->service_account, "trimtab-operator");
  EXPECT_EQ(claims->service_account_uid, "sa-uid");
  EXPECT_EQ(claims->pod_name, "op-1");
  EXPECT_EQ(claims->pod_uid, "pod-uid");
  EXPECT_FALSE(claims->id.empty());

  // Another key, a changed payload, expiry (beyond 60 s of leeway), garbage.
  EXPECT_FALSE(TokenIssuer(std::string(32, 'x')).Verify(token, now).ok());
  std::string tampered = token;
  tampered[tampered.find('.') + 5] ^= 1;
  EXPECT_FALSE(issuer.Verify(tampered, now).ok());
  EXPECT_TRUE(issuer.Verify(token, now + std::chrono::seconds(3650)).ok());
  EXPECT_FALSE(issuer.Verify(token, now + std::chrono::seconds(3700)).ok());
  EXPECT_FALSE(issuer.Verify(token, now - std::chrono::seconds(120)).ok());
  EXPECT_FALSE(issuer.Verify("a.b", now).ok());
  EXPECT_FALSE(issuer.Verify("", now).ok());
  EXPECT_FALSE(issuer.Verify("not a token at all", now).ok());

  // A token for another audience is not for the API server.
  TokenClaims vault = Claims(1'700'000'000);
  vault.audiences = {"vault"};
  EXPECT_FALSE(issuer.Verify(issuer.Issue(vault), now).ok());
}

TEST(TokenIssuerTest, KeyFileSurvivesRestarts) {
  auto dir = std::filesystem::temp_directory_path() /
             ("trimtab-token-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string key_file = (dir / "service-account.key").string();
  auto first = TokenIssuer::Create(key_file);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(std::filesystem::status(key_file).permissions() & std::filesystem::perms::others_read,
            std::filesystem::perms::none);
  const std::string token = (*first)->Issue(Claims(1'700'000'000));
  auto second = TokenIssuer::Create(key_file);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE((*second)->Verify(token, FromUnixMillis(1'700'000'000'000)).ok());
  auto memory = TokenIssuer::Create("");
  ASSERT_TRUE(memory.ok());
  EXPECT_FALSE((*memory)->Verify(token, FromUnixMillis(1'700'000'000'000)).ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace trimtab::cluster::auth
