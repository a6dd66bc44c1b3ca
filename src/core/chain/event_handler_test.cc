#include "core/chain/event_handler.h"

#include <gtest/gtest.h>

namespace trimtab::core {
namespace {

AutoscalerEvent Vetoed(std::string message) {
  return AutoscalerEvent{.job_key = "ns/job", .type = EventType::kWarning,
                         .reason = kReasonScalingVetoed, .message = std::move(message)};
}

TEST(EventHandlerTest, RepeatsWithinIntervalAreCountedNotDuplicated) {
  ManualClock clock(FromUnixMillis(1000000));
  InMemoryEventHandler handler(&clock);
  handler.HandleEvent(Vetoed("cpu low"), Seconds(60));
  clock.Advance(Seconds(30));
  handler.HandleEvent(Vetoed("cpu low"), Seconds(60));
  auto events = handler.Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].count, 2);
  EXPECT_EQ(events[0].last_time - events[0].first_time, Seconds(30));

  // Past the interval since the last occurrence: a new event.
  clock.Advance(Seconds(61));
  handler.HandleEvent(Vetoed("cpu low"), Seconds(60));
  EXPECT_EQ(handler.Events().size(), 2u);
}

TEST(EventHandlerTest, DifferentMessageOrNoIntervalIsNew) {
  ManualClock clock;
  InMemoryEventHandler handler(&clock);
  handler.HandleEvent(Vetoed("a"), Seconds(60));
  handler.HandleEvent(Vetoed("b"), Seconds(60));
  handler.HandleEvent(Vetoed("b"), std::nullopt);
  AutoscalerEvent other_job = Vetoed("a");
  other_job.job_key = "ns/other";
  handler.HandleEvent(other_job, Seconds(60));
  EXPECT_EQ(handler.Events().size(), 4u);
  EXPECT_EQ(handler.EventsWithReason(kReasonScalingVetoed).size(), 4u);
  EXPECT_TRUE(handler.EventsWithReason(kReasonScalingReport).empty());
}

TEST(EventHandlerTest, MessageKeyDedupesChangingMessagesAndKeepsTheLatest) {
  ManualClock clock;
  InMemoryEventHandler handler(&clock);
  AutoscalerEvent e = Vetoed("capacity 10.01");
  e.message_key = "same-change";
  handler.HandleEvent(e, Seconds(300));
  e.message = "capacity 10.02";
  handler.HandleEvent(e, Seconds(300));
  auto events = handler.Events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].count, 2);
  EXPECT_EQ(events[0].event.message, "capacity 10.02");
}

TEST(EventHandlerTest, KeysAreUnambiguous) {
  AutoscalerEvent a{.job_key = "ab", .reason = "c"};
  AutoscalerEvent b{.job_key = "a", .reason = "bc"};
  EXPECT_NE(EventDeduplicator::KeyOf(a), EventDeduplicator::KeyOf(b));
  EXPECT_EQ(EventTypeName(EventType::kWarning), "Warning");
}

}  // namespace
}  // namespace trimtab::core
