/* parallel_copy.c — host copies spread over a team of threads (see parallel_copy.h).
 *
 * Copyright (C) 2026 The tilemm developers.  GPLv3+ (see COPYING).
 */
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "parallel_copy.h"

/* A copy into the pinned ring (tilemm_parallel_copy_2d) writes where no CPU reads next: a copy
 * engine reads it.  A cached store first reads the line it writes (read for ownership): a third
 * of a cached copy's memory traffic, and the copies of several GPUs' teams together are bound by
 * the host's memory bandwidth.  So there a piece of STREAM_LEAST_BYTES or more is written with
 * stores that bypass the caches (SSE2's non-temporal stores, on every x86-64), fenced at its end
 * so that they are visible before the member reports the piece done.  A copy into a result
 * (tilemm_parallel_copy_into_huge) goes through the caches (memcpy): the host may read it next (a
 * split product's parts joined, X'X's upper triangle mirrored, the BLAS library's update of C),
 * and streamed stores would send it to memory first. */
enum { STREAM_LEAST_BYTES = 4096 };

static void copy_bytes (char *dst, const char *src, size_t len, int stream)
{
#if defined(__SSE2__)
  if (stream && len >= STREAM_LEAST_BYTES)
    {
      const size_t head = (16 - ((uintptr_t) dst & 15)) & 15;
      memcpy (dst, src, head);
      dst += head;
      src += head;
      len -= head;
      size_t i = 0;
      for (; i + 64 <= len; i += 64)
        {
          const __m128i a = _mm_loadu_si128 ((const __m128i *) (src + i));
          const __m128i b = _mm_loadu_si128 ((const __m128i *) (src + i + 16));
          const __m128i c = _mm_loadu_si128 ((const __m128i *) (src + i + 32));
          const __m128i d = _mm_loadu_si128 ((const __m128i *) (src + i + 48));
          _mm_stream_si128 ((__m128i *) (dst + i), a);
          _mm_stream_si128 ((__m128i *) (dst + i + 16), b);
          _mm_stream_si128 ((__m128i *) (dst + i + 32), c);
          _mm_stream_si128 ((__m128i *) (dst + i + 48), d);
        }
      memcpy (dst + i, src + i, len - i);
      _mm_sfence ();
      return;
    }
#endif
  (void) stream;
  memcpy (dst, src, len);
}

/* A copy is cut into PIECES_A_MEMBER pieces a member it is handed (none under
 * TILEMM_COPY_LEAST_PIECE_BYTES): members take pieces as they come, so the last piece is a small
 * share of the copy (a staging chunk of 16 pieces on 15 members took two pieces' time, nearly
 * twice its even share), and a member the system does not schedule holds back one small piece
 * only.  A copy of HUGE_PAGE_BYTES or more is cut instead at the destination's huge-page
 * boundaries, a piece a huge page: a result's pages are asked as huge pages (staging.cu), and the
 * first thread to touch one faults and clears all of it while every other thread touching it
 * waits, so pieces smaller than a huge page had the whole team queue on one page at a time
 * (tilemm_parallel_copy_into_huge: into a result; into the pinned ring the small pieces keep every
 * member busy).  How many members copy is not decided here: the caller hands the count (the
 * staging's from its plan, tilemm_staging_copy_members; calibration's, the count it measures). */
enum { PIECES_A_MEMBER = 8, HUGE_PAGE_BYTES = 2 << 20 };

/* One copy, cut into pieces: of a contiguous block, the bytes from `first_end` on in `piece`s
 * (piece 0: those before first_end), or `per_piece` columns. */
typedef struct {
  char *dst;
  const char *src;
  size_t dst_pitch, src_pitch, row_bytes, cols, total, per_piece, piece, first_end;
  int contiguous;
  int stream; /* stores past the caches (copy_bytes) */
} copy_job;

static void copy_piece (void *arg, int64_t piece, int member)
{
  (void) member;
  const copy_job *j = (const copy_job *) arg;
  if (j->contiguous)
    {
      const size_t at = piece == 0 ? 0 : j->first_end + (size_t) (piece - 1) * j->piece;
      const size_t end = piece == 0 ? j->first_end : at + j->piece;
      const size_t len = (end < j->total ? end : j->total) - at;
      copy_bytes (j->dst + at, j->src + at, len, j->stream);
      return;
    }
  const size_t first = (size_t) piece * j->per_piece;
  const size_t last = j->cols - first < j->per_piece ? j->cols : first + j->per_piece;
  for (size_t c = first; c < last; c++)
    copy_bytes (j->dst + c * j->dst_pitch, j->src + c * j->src_pitch, j->row_bytes, j->stream);
}

static int copy_2d (tilemm_host_team *team, int members, void *dst, size_t dst_pitch,
                     const void *src, size_t src_pitch, size_t row_bytes, size_t cols, int huge)
{
  copy_job j;
  j.dst = (char *) dst;
  j.src = (const char *) src;
  j.dst_pitch = dst_pitch;
  j.src_pitch = src_pitch;
  j.row_bytes = row_bytes;
  j.cols = cols;
  j.total = row_bytes * cols;
  j.stream = !huge;
  if (members < 1)
    members = 1;
  if (j.total == 0)
    return members;
  j.contiguous = dst_pitch == row_bytes && src_pitch == row_bytes;
  size_t piece = j.total / ((size_t) members * PIECES_A_MEMBER);
  piece = piece < TILEMM_COPY_LEAST_PIECE_BYTES ? TILEMM_COPY_LEAST_PIECE_BYTES : piece;
  piece = (piece + 4095) & ~(size_t) 4095;   /* whole pages of the destination a piece */
  const int whole_huge_pages = huge && j.total >= 2 * (size_t) HUGE_PAGE_BYTES;
  if (whole_huge_pages)
    piece = HUGE_PAGE_BYTES;
  j.piece = piece;
  /* A contiguous copy's pieces end at multiples of `piece` in the destination's addresses. */
  const uintptr_t start = (uintptr_t) j.dst;
  const size_t to_boundary = piece - (size_t) (start % piece);
  j.first_end = to_boundary < j.total ? to_boundary : j.total;
  /* Columns: as many as span a piece of the destination (its pitch a column). */
  const size_t span = whole_huge_pages && dst_pitch > row_bytes ? dst_pitch : row_bytes;
  j.per_piece = j.contiguous || span >= piece ? 1 : piece / span;
  const int64_t pieces
    = j.contiguous ? 1 + (int64_t) ((j.total - j.first_end + piece - 1) / piece)
                   : (int64_t) ((cols + j.per_piece - 1) / j.per_piece);
  tilemm_host_team_each (team, members, pieces, copy_piece, &j);
  return members;
}

int tilemm_parallel_copy_2d (tilemm_host_team *team, int members, void *dst, size_t dst_pitch,
                             const void *src, size_t src_pitch, size_t row_bytes, size_t cols)
{
  return copy_2d (team, members, dst, dst_pitch, src, src_pitch, row_bytes, cols, 0);
}

int tilemm_parallel_copy_into_huge (tilemm_host_team *team, int members, void *dst,
                                    size_t dst_pitch, const void *src, size_t src_pitch,
                                    size_t row_bytes, size_t cols)
{
  return copy_2d (team, members, dst, dst_pitch, src, src_pitch, row_bytes, cols, 1);
}
