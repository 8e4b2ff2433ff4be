/* qemu vs core: checksums over generated data in a stack buffer: bitwise CRC-32 (reflected,
 * polynomial 0xEDB88320), Adler-32, FNV-1a over bytes, halfwords and words, a rotate-and-multiply
 * hash; also a recursive Ackermann A(2, n). Exits with the low byte of the CRC. */
#include "prog_rt.h"

static uint32_t crc32(const uint8_t* p, uint32_t n) {
  uint32_t c = 0xffffffffu;
  for (uint32_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1)));
  }
  return ~c;
}

static uint32_t adler32(const uint8_t* p, uint32_t n) {
  uint32_t a = 1, b = 0;
  for (uint32_t i = 0; i < n; ++i) {
    a = (a + p[i]) % 65521u;
    b = (b + a) % 65521u;
  }
  return b << 16 | a;
}

static uint32_t rotl(uint32_t x, int r) { return x << r | x >> (32 - r); }

static uint32_t ack(uint32_t m, uint32_t n) {
  if (m == 0) return n + 1;
  if (n == 0) return ack(m - 1, 1);
  return ack(m - 1, ack(m, n - 1));
}

int main(void) {
  uint8_t buf[128];
  for (uint32_t i = 0; i < sizeof buf; ++i) buf[i] = (uint8_t)(i * 7 + (i >> 3) * 13 + 0x5a);
  const uint32_t crc_check = crc32((const uint8_t*)"123456789", 9); /* cbf43926 */
  prog_put_hex_line("crc32(123456789)", crc_check);
  const uint32_t crc = crc32(buf, sizeof buf);
  prog_put_hex_line("crc32", crc);
  prog_put_hex_line("adler32", adler32(buf, sizeof buf));
  uint32_t fnv = 0x811c9dc5u;
  for (uint32_t i = 0; i < sizeof buf; ++i) fnv = (fnv ^ buf[i]) * 0x01000193u;
  prog_put_hex_line("fnv1a", fnv);
  const uint16_t* h = (const uint16_t*)buf;
  const int16_t* sh = (const int16_t*)buf;
  const uint32_t* w = (const uint32_t*)buf;
  uint32_t hh = 0, sw = 0;
  int32_t sum = 0;
  for (int i = 0; i < 64; ++i) hh = rotl(hh, 5) ^ h[i], sum += sh[i];
  for (int i = 0; i < 32; ++i) sw = rotl(sw ^ w[i], 11) * 0x9e3779b1u;
  prog_put_hex_line("half", hh);
  prog_put_hex_line("word", sw);
  prog_puts("sum16=");
  prog_put_dec(sum);
  prog_putc('\n');
  for (uint32_t n = 0; n < 6; ++n) {
    prog_put_udec(ack(2, n));
    prog_putc(n == 5 ? '\n' : ' ');
  }
  return (int)(crc & 0xff);
}
