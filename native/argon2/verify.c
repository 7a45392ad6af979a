/*
 * argon2id verification with a memory block the caller keeps (server/lib/argon2-native.ts loads this through koffi).
 *
 * Why our own entry point: every npm binding of argon2 allocates the 19 MiB work area afresh on each call.
 * @node-rs/argon2's allocator (mimalloc) maps and unmaps it from the kernel every time, so each verify also pays the
 * zeroing of 19 MiB of new pages (about 3 ms of kernel time a call on the 2-core VMs this was measured on), and its
 * Rust code is slower than the reference implementation's SIMD code (vendor/src/opt.c) compiled for AVX2 or AVX-512.
 * The reference library has no way to pass a block in except its allocation callbacks, which take no user pointer:
 * the block for the current call is therefore handed to them in thread-local variables, set and cleared around the
 * call on the thread that runs it. The work area is still wiped after each call (the library's default).
 *
 * The library (vendor/, phc-winner-argon2, CC0 or Apache-2.0) is compiled unchanged by scripts/build-native.mjs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "argon2.h"
#include "encoding.h"

static __thread uint8_t *kept;
static __thread size_t kept_bytes;

static int take_block(uint8_t **memory, size_t bytes) {
  /* a hash whose memory cost exceeds the block (one made with other parameters) gets its own allocation */
  *memory = (kept != NULL && bytes <= kept_bytes) ? kept : malloc(bytes);
  return *memory == NULL ? ARGON2_MEMORY_ALLOCATION_ERROR : ARGON2_OK;
}

static void give_back(uint8_t *memory, size_t bytes) {
  (void)bytes;
  if (memory != kept) free(memory);
}

/*
 * Verifies `pwd` (pwdlen bytes) against an argon2id PHC string (NUL-terminated), using `block` (block_bytes) as the
 * work area. Returns ARGON2_OK (0) on a match, ARGON2_VERIFY_MISMATCH (-35) on a wrong password, another negative
 * argon2 error code otherwise (ARGON2_DECODING_FAIL for a string that is not argon2id).
 */
__attribute__((visibility("default"))) int ops_argon2id_verify(const char *encoded, const uint8_t *pwd, size_t pwdlen,
                                                                uint8_t *block, size_t block_bytes) {
  argon2_context ctx;
  uint8_t *expected = NULL;
  int ret;
  size_t encoded_len = strlen(encoded);

  if (pwdlen > ARGON2_MAX_PWD_LENGTH) return ARGON2_PWD_TOO_LONG;
  if (encoded_len > UINT32_MAX) return ARGON2_DECODING_FAIL;

  memset(&ctx, 0, sizeof ctx);
  /* no decoded field can be longer than the string itself */
  ctx.saltlen = (uint32_t)encoded_len;
  ctx.outlen = (uint32_t)encoded_len;
  ctx.salt = malloc(encoded_len);
  ctx.out = malloc(encoded_len);
  if (ctx.salt == NULL || ctx.out == NULL) {
    ret = ARGON2_MEMORY_ALLOCATION_ERROR;
    goto done;
  }
  ctx.pwd = (uint8_t *)pwd;
  ctx.pwdlen = (uint32_t)pwdlen;

  ret = decode_string(&ctx, encoded, Argon2_id);
  if (ret != ARGON2_OK) goto done;

  expected = ctx.out;
  ctx.out = malloc(ctx.outlen);
  if (ctx.out == NULL) {
    ret = ARGON2_MEMORY_ALLOCATION_ERROR;
    goto done;
  }
  ctx.allocate_cbk = take_block; /* decode_string reset them */
  ctx.free_cbk = give_back;
  kept = block;
  kept_bytes = block_bytes;
  ret = argon2_verify_ctx(&ctx, (const char *)expected, Argon2_id); /* compares in constant time */
  kept = NULL;
  kept_bytes = 0;

done:
  free(ctx.salt);
  free(ctx.out);
  free(expected);
  return ret;
}
