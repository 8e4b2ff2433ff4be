/* qemu vs core: a small printf (stdarg varargs, %d %u %x %c %s %%, widths, '-' and '0' flags),
 * string handling and struct copies (memcpy). Output is text; exits with 0. */
#include <stdarg.h>

#include "prog_rt.h"

static void out_padded(const char* s, int n, int width, int left, char pad) {
  if (!left)
    for (int i = n; i < width; ++i) prog_putc(pad);
  prog_write(s, (uint32_t)n);
  if (left)
    for (int i = n; i < width; ++i) prog_putc(' ');
}

static int utoa_base(uint32_t v, unsigned base, char* buf) { /* digits reversed into buf */
  int n = 0;
  do {
    buf[n++] = "0123456789abcdef"[v % base];
    v /= base;
  } while (v);
  return n;
}

static void mini_printf(const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  for (const char* p = fmt; *p; ++p) {
    if (*p != '%') {
      prog_putc(*p);
      continue;
    }
    ++p;
    int left = 0, width = 0;
    char pad = ' ';
    if (*p == '-') left = 1, ++p;
    if (*p == '0') pad = '0', ++p;
    while (*p >= '0' && *p <= '9') width = width * 10 + (*p++ - '0');
    char tmp[12], out[12];
    int n = 0, neg = 0;
    switch (*p) {
      case 'd': {
        const int32_t v = va_arg(ap, int32_t);
        neg = v < 0;
        n = utoa_base(neg ? 0u - (uint32_t)v : (uint32_t)v, 10, tmp);
        break;
      }
      case 'u': n = utoa_base(va_arg(ap, uint32_t), 10, tmp); break;
      case 'x': n = utoa_base(va_arg(ap, uint32_t), 16, tmp); break;
      case 'c': tmp[0] = (char)va_arg(ap, int), n = 1; break;
      case 's': {
        const char* s = va_arg(ap, const char*);
        out_padded(s, (int)strlen(s), width, left, ' ');
        continue;
      }
      case '%': tmp[0] = '%', n = 1; break;
      default: tmp[0] = '?', n = 1; break;
    }
    int m = 0;
    if (neg) out[m++] = '-';
    while (n > 0) out[m++] = tmp[--n];
    out_padded(out, m, width, left, pad);
  }
  va_end(ap);
}

struct record {
  char name[12];
  int32_t score;
  uint16_t id;
  uint8_t flags;
};

static void reverse(char* s) {
  for (unsigned i = 0, j = strlen(s); i + 1 < j; ++i, --j) {
    const char t = s[i];
    s[i] = s[j - 1];
    s[j - 1] = t;
  }
}

int main(void) {
  mini_printf("hello, %s! %d%% done\n", "weft", 42);
  mini_printf("[%5d] [%-5d] [%05d] [%x] [%08x] [%u]\n", -17, 23, 99, 0xbeefu, 0x1234u, 4000000000u);
  mini_printf("[%d] [%d] [%c%c%c]\n", (int32_t)0x80000000u, 0x7fffffff, 'a', 'b', 'c');
  struct record r[4] = {{"alpha", -5, 1, 3}, {"beta", 100, 2, 0}, {"gamma", 7, 300, 255},
                        {"delta", 0, 65535, 128}};
  struct record best = r[0];
  for (int i = 1; i < 4; ++i)
    if (r[i].score > best.score) best = r[i]; /* struct copy */
  for (int i = 0; i < 4; ++i) {
    mini_printf("%-8s|%6d|%5u|%3u\n", r[i].name, r[i].score, (uint32_t)r[i].id,
                (uint32_t)r[i].flags);
  }
  mini_printf("best=%s\n", best.name);
  char s[32] = "the quick brown fox";
  reverse(s);
  mini_printf("%s (%u chars)\n", s, strlen(s));
  int words = 0, in_word = 0;
  for (const char* p = s; *p; ++p) {
    if (*p == ' ') in_word = 0;
    else if (!in_word) in_word = 1, ++words;
  }
  mini_printf("words=%d\n", words);
  return 0;
}
