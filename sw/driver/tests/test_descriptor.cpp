// The descriptor encoders and decoders (weft/descriptor_format.hpp, generated from
// rtl/host/weft_descriptors.toml) against the format as docs/programming-model.md has stated it
// since the first device: each field at its word and bits, written here by hand from that table;
// random operands survive encode -> decode; encoding writes no reserved bit; the field tables
// (kFields, which the descriptor fuzzer walks) name exactly the bits encode() writes.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "weft/descriptor.hpp"
#include "weft/tb/options.hpp"

namespace {

using weft::ComputeArgs;
using weft::Descriptor;
using weft::DescriptorWords;
using weft::Opcode;
using weft::SimtLaunch;
using weft::StoreAccArgs;
using weft::StoreMode;
using weft::Transfer2d;

TEST(DescriptorFormat, HeaderFieldsAtTheirDocumentedBits) {
  Descriptor d = Descriptor::compute({}).with_flags(weft::kFlagIrq | weft::kFlagWaitStore);
  d.with_dep(0, 3).with_dep(1, 200).with_seq(0xdeadbeef);
  EXPECT_EQ(d.w[0], 0x20u | (0x09u << 8) | (3u << 16) | (200u << 24));
  EXPECT_EQ(d.w[1], 0xdeadbeefu);
  EXPECT_EQ(d.opcode(), Opcode::kCompute);
  EXPECT_EQ(d.flags(), 0x09);
  EXPECT_EQ(d.dep(0), 3);
  EXPECT_EQ(d.dep(1), 200);
  EXPECT_EQ(d.seq(), 0xdeadbeefu);
}

TEST(DescriptorFormat, OpcodeAndErrorCodesAreTheDocumentedOnes) {
  EXPECT_EQ(static_cast<int>(Opcode::kNop), 0x00);
  EXPECT_EQ(static_cast<int>(Opcode::kFence), 0x01);
  EXPECT_EQ(static_cast<int>(Opcode::kLoad), 0x10);
  EXPECT_EQ(static_cast<int>(Opcode::kStoreSpad), 0x11);
  EXPECT_EQ(static_cast<int>(Opcode::kCompute), 0x20);
  EXPECT_EQ(static_cast<int>(Opcode::kStoreAcc), 0x30);
  EXPECT_EQ(static_cast<int>(Opcode::kSimtLaunch), 0x40);
  EXPECT_EQ(weft::error_name(weft::ErrorCode::kSpadRange), "SPAD_RANGE");
  EXPECT_EQ(static_cast<int>(weft::ErrorCode::kParam), 12);
  EXPECT_EQ(weft::opcode_name(Opcode::kStoreAcc), "STORE_ACC");
}

TEST(DescriptorFormat, OperandFieldsAtTheirDocumentedWords) {
  const Transfer2d t{0x1234'5678'9abc'def0ull, 64, 3, 128, 7, 9};
  const Descriptor l = Descriptor::load(t);
  EXPECT_EQ(l.w[0], 0x10u);
  EXPECT_EQ(l.w[2], 0x9abcdef0u);
  EXPECT_EQ(l.w[3], 0x12345678u);
  EXPECT_EQ(l.w[4], 64u);
  EXPECT_EQ(l.w[5], 3u);
  EXPECT_EQ(l.w[6], 128u);
  EXPECT_EQ(l.w[7], 7u);
  EXPECT_EQ(l.w[8], 9u);

  ComputeArgs c;
  c.a_addr = 2, c.a_row_stride = 3, c.a_tile_stride = 4, c.w_addr = 5, c.w_row_stride = 6;
  c.w_tile_stride = 7, c.m = 8, c.k = 9, c.acc_addr = 10;
  c.accumulate = true, c.a_signed = false, c.w_signed = true, c.a_zp = 0x81, c.w_zp = 0x7f;
  const Descriptor cd = Descriptor::compute(c);
  for (int i = 2; i <= 10; ++i) EXPECT_EQ(cd.w[i], static_cast<uint32_t>(i)) << "word " << i;
  EXPECT_EQ(cd.w[11], 1u | (0u << 1) | (1u << 2) | (0x81u << 8) | (0x7fu << 16));

  StoreAccArgs s;
  s.host_addr = 0x1'0000'0040ull, s.host_stride = 48, s.m = 5, s.acc_addr = 6, s.n = 7;
  s.mode = StoreMode::kOnnx, s.pack = true, s.load_params = true, s.params_addr = 9;
  s.zp = -3, s.act_min = -128, s.act_max = 127;
  const Descriptor sd = Descriptor::store_acc(s);
  EXPECT_EQ(sd.w[0], 0x30u);
  EXPECT_EQ(sd.w[2], 0x40u);
  EXPECT_EQ(sd.w[3], 1u);
  EXPECT_EQ(sd.w[4], 48u);
  EXPECT_EQ(sd.w[5], 5u);
  EXPECT_EQ(sd.w[6], 6u);
  EXPECT_EQ(sd.w[7], 7u);
  EXPECT_EQ(sd.w[8], 2u | 4u | 8u);
  EXPECT_EQ(sd.w[9], 9u);
  EXPECT_EQ(sd.w[10], static_cast<uint32_t>(-3));
  EXPECT_EQ(sd.w[11], static_cast<uint32_t>(-128));
  EXPECT_EQ(sd.w[12], 127u);

  const SimtLaunch launch{2, 3, 4, 5, 6, 7, 8, 9};
  const Descriptor ld = Descriptor::simt_launch(launch);
  EXPECT_EQ(ld.w[0], 0x40u);
  for (int i = 2; i <= 9; ++i) EXPECT_EQ(ld.w[i], static_cast<uint32_t>(i)) << "word " << i;
}

TEST(DescriptorFormat, DefaultsAreTheDocumentedOnes) {
  const StoreAccArgs s;
  EXPECT_EQ(s.mode, StoreMode::kInt32);
  EXPECT_EQ(s.act_min, INT32_MIN);
  EXPECT_EQ(s.act_max, INT32_MAX);
  const ComputeArgs c;
  EXPECT_TRUE(c.a_signed);
  EXPECT_TRUE(c.w_signed);
  EXPECT_FALSE(c.accumulate);
}

// Random operands: decode(encode(x)) == x, and the reserved bits of each layout stay 0.
TEST(DescriptorFormat, RandomOperandsRoundTripAndLeaveReservedBitsZero) {
  std::mt19937_64 rng = weft::tb::make_rng();
  auto u32 = [&] { return static_cast<uint32_t>(rng()); };
  auto u8 = [&] { return static_cast<uint8_t>(rng()); };
  auto bit = [&] { return (rng() & 1) != 0; };
  for (int i = 0; i < 1000; ++i) {
    const Transfer2d t{rng(), u32(), u32(), u32(), u32(), u32()};
    const Descriptor td = Descriptor::store_spad(t);
    const Transfer2d t2 = td.operands<Transfer2d>();
    EXPECT_EQ(t2.host_addr, t.host_addr);
    EXPECT_EQ(t2.row_bytes, t.row_bytes);
    EXPECT_EQ(t2.rows, t.rows);
    EXPECT_EQ(t2.host_stride, t.host_stride);
    EXPECT_EQ(t2.spad_addr, t.spad_addr);
    EXPECT_EQ(t2.spad_stride, t.spad_stride);
    for (int w = 9; w < 16; ++w) EXPECT_EQ(td.w[w], 0u);

    // Field by field, so that a field added to a layout does not shift these.
    ComputeArgs c;
    c.a_addr = u32(), c.a_row_stride = u32(), c.a_tile_stride = u32(), c.w_addr = u32();
    c.w_row_stride = u32(), c.w_tile_stride = u32(), c.m = u32(), c.k = u32(), c.acc_addr = u32();
    c.accumulate = bit(), c.a_signed = bit(), c.w_signed = bit(), c.a_zp = u8(), c.w_zp = u8();
    const Descriptor cd = Descriptor::compute(c);
    const ComputeArgs c2 = cd.operands<ComputeArgs>();
    EXPECT_EQ(c2.a_addr, c.a_addr);
    EXPECT_EQ(c2.w_tile_stride, c.w_tile_stride);
    EXPECT_EQ(c2.acc_addr, c.acc_addr);
    EXPECT_EQ(c2.accumulate, c.accumulate);
    EXPECT_EQ(c2.a_signed, c.a_signed);
    EXPECT_EQ(c2.w_signed, c.w_signed);
    EXPECT_EQ(c2.a_zp, c.a_zp);
    EXPECT_EQ(c2.w_zp, c.w_zp);
    EXPECT_EQ(cd.w[11] & 0xff0000f8u, 0u);  // bits 7:3 and 31:24 of word 11 are reserved
    for (int w = 12; w < 16; ++w) EXPECT_EQ(cd.w[w], 0u);

    StoreAccArgs s;
    s.host_addr = rng(), s.host_stride = u32(), s.m = u32(), s.acc_addr = u32(), s.n = u32();
    s.mode = static_cast<StoreMode>(rng() & 3), s.pack = bit(), s.load_params = bit();
    s.params_addr = u32(), s.zp = static_cast<int32_t>(u32());
    s.act_min = static_cast<int32_t>(u32()), s.act_max = static_cast<int32_t>(u32());
    const Descriptor sd = Descriptor::store_acc(s);
    const StoreAccArgs s2 = sd.operands<StoreAccArgs>();
    EXPECT_EQ(s2.host_addr, s.host_addr);
    EXPECT_EQ(s2.mode, s.mode);
    EXPECT_EQ(s2.pack, s.pack);
    EXPECT_EQ(s2.load_params, s.load_params);
    EXPECT_EQ(s2.zp, s.zp);
    EXPECT_EQ(s2.act_min, s.act_min);
    EXPECT_EQ(s2.act_max, s.act_max);
    EXPECT_EQ(sd.w[8] & ~0xfu, 0u);  // bits 31:4 of word 8 are reserved
    for (int w = 13; w < 16; ++w) EXPECT_EQ(sd.w[w], 0u);
    if (HasFailure()) return;
  }
}

// Each kFields entry, all ones in its bits and nothing else, survives decode -> encode (the
// struct has a member there), and the entries together cover what encode() of an all-ones
// decode writes (no member missing from the table). Fields do not overlap.
template <class L>
void expect_field_table_matches_codec(const char* layout) {
  SCOPED_TRACE(layout);
  DescriptorWords all{};
  for (const weft::DescField& f : L::kFields) {
    SCOPED_TRACE(std::string(f.name));
    DescriptorWords w{};
    if (f.width == 64) {
      w[size_t(f.word)] = w[size_t(f.word) + 1] = ~0u;
    } else {
      w[size_t(f.word)] = (f.width == 32 ? ~0u : ((1u << f.width) - 1u)) << f.lsb;
    }
    DescriptorWords back{};
    L::decode(w).encode(back);
    EXPECT_EQ(back, w);
    for (size_t i = 0; i < w.size(); ++i) {
      EXPECT_EQ(all[i] & w[i], 0u) << "overlaps an earlier field";
      all[i] |= w[i];
    }
  }
  DescriptorWords ones;
  ones.fill(~0u);
  DescriptorWords enc{};
  L::decode(ones).encode(enc);
  EXPECT_EQ(enc, all) << "encode() writes bits no kFields entry names";
}

TEST(DescriptorFormat, FieldTablesNameExactlyTheEncodedBits) {
  expect_field_table_matches_codec<weft::DescriptorHeader>("header");
  expect_field_table_matches_codec<Transfer2d>("transfer");
  expect_field_table_matches_codec<ComputeArgs>("compute");
  expect_field_table_matches_codec<StoreAccArgs>("store_acc");
  expect_field_table_matches_codec<SimtLaunch>("simt_launch");
}

}  // namespace
