"""Numba kernels: the transposition table with partition search (DDS "winning ranks").

An entry is a fact about every trick-boundary position that matches it: the same leader, target
seat and rule switches, the same number of cards of each suit in each hand, and, for each suit,
the same owners of the top ``d_s`` remaining cards (relative ranks). ``d_s`` comes from the ranks
that mattered in the search below the node (backed up like DDS's winning ranks), so one entry
answers many positions. Entries never go stale (they hold for any deal); a generation counter only
steers replacement. The engine empties the table when a quarter of it is taken
(``Engine._make_room``).

Layout, one column per slot: ``keys[:, i] = (w0, w1, w2)``: ``w0`` the suit lengths of the
hands and the leader; ``w1`` (suits 0, 1) and ``w2`` (suits 2, 3) 30 bits per suit = depth (4
bits) and owners of the top cards, highest first, 2 bits each; ``w1`` bits 60-61 the rule
switches, ``w2`` bits 60-61 the target. ``info[0, i]`` the entry's data packed in one word
(``pack``: lower, upper, best lead, tricks left, cards in the pattern, then for each suit the
depth its result relied on) and ``info[1, i]`` a check of the keys and the data (``check_of``).
A hit passes only those relevant cards up to the positions above it, not the cards the key holds
for hashing (``TOPK``): passing the key's cards up would make every ancestor's pattern as deep
as the hashing floor, so its entry would answer fewer positions (the nodes it cost:
benchmarks/HISTORY.md, "Figures from the source comments").

Two threads may search one table at once (``Engine(threads=2)``). A reader copies an entry's
keys and data into locals and uses it only when the check word agrees with them, so an entry
read while another thread was writing it (or written by two threads at once) is never believed:
it reads as a miss. The check is two polynomial hashes modulo primes below 2**31 (a torn entry
passes it with odds of about 2**-62). Fingerprints and generations only steer the scan and the
replacement, so a lost update there costs a miss, never a wrong answer.
``gens[i]`` the generation that stored the entry. Slots are grouped in buckets of ``WAYS`` that
share a hash of ``w0``, the target/rules and the owners of the top ``TOPK`` cards of each suit
(an entry's *group*), or of the top ``DEEP`` cards when the entry's pattern holds them: every
entry that can answer a position is in one of the position's two groups. ``fps`` holds one
byte per slot, eight to a word: 0 for an empty slot, else 1..127 from the group's hash (seven
bits, so no word arithmetic overflows int64, with or without the JIT).

A lookup that misses scans its whole bucket chain (up to ``WAYS * SPILL`` slots once the table
is full, as it is in any long run), and nearly every slot there holds another group. So the scan
tests the fingerprint bytes eight at a time (SWAR: one word compare per eight slots) and reads a
key only where the byte matches. Keys and info are stored one row per field (``keys[:, i]``) so
the victim scan of a full chain and the key checks read contiguous memory (measurements:
benchmarks/HISTORY.md, "Solver constants and layouts").
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._consts import HI, POP, Ints, kernel

WAYS = 128
#: buckets in a spill chain (a full bucket spills into ``base ^ (j * WAYS)``, j = 1, 2, ...).
#: Every entry of a group lives in its chain, and a hard proof can hold thousands of entries of
#: one group (the same suit lengths and top cards, different deep patterns): short chains fill
#: and evict their own entries, which the search then proves again; longer scans cost more per
#: lookup, and 32 balances the two (benchmarks/HISTORY.md, "Solver constants and layouts").
#: ``Engine`` empties the table once a quarter of it is taken, so long runs do not scan full
#: chains.
SPILL = 32
#: The owners of the top ``TOPK`` cards of each suit always belong to an entry's pattern, so they
#: can be hashed (a suit with fewer live cards: all of them). Coarser keys let partition entries
#: answer more positions but crowd more entries into one bucket chain; since a hit passes up
#: only the relevant ranks, one card per suit searches the fewest nodes (benchmarks/HISTORY.md,
#: "Solver constants and layouts").
TOPK = 1
#: A second hashing level. An entry whose pattern holds the top ``DEEP`` cards of every suit (all
#: of a shorter suit) is filed under a hash of those owners instead of the top ``TOPK``; a lookup
#: that the ``TOPK`` chain cannot answer scans the ``DEEP`` chain too. A hard proof stores
#: thousands of entries of one ``TOPK`` group, with hundreds read per lookup; most of them are
#: deep in every suit, and the second level spreads them over many chains (benchmarks/HISTORY.md,
#: "Solver constants and layouts").
DEEP = 2
_M30 = (1 << 30) - 1
_M26 = (1 << 26) - 1


class Table(NamedTuple):
    """The table's arrays (the layout above), one argument of the kernels; ``n`` slots."""

    keys: np.ndarray  # int64[3, n]: w0, w1, w2 of each slot
    info: np.ndarray  # int64[2, n]: packed data, check word
    gens: np.ndarray  # int32[n]: the generation that stored the slot
    fps: np.ndarray  # int64[n // 8]: fingerprint bytes, eight to a word


def new_table(log2_slots: int = 21) -> Table:
    """Allocate an empty table of ``2**log2_slots`` slots; at least one spill chain of buckets
    (``WAYS * SPILL`` slots)."""
    n = max(1 << log2_slots, WAYS * SPILL)
    return Table(
        keys=np.zeros((3, n), dtype=np.int64),
        info=np.zeros((2, n), dtype=np.int64),
        gens=np.zeros(n, dtype=np.int32),
        fps=np.zeros(n // 8, dtype=np.int64),
    )


#: byte lanes of a fingerprint word: 0x0101...01 and 0x8080...80 (as a signed int64)
_LANES_LO = 0x0101010101010101
_LANES_HI = 0x0080808080808080 - (1 << 63)


@kernel
def _zero_lanes(x: int) -> int:
    """Bit ``8j + 7`` set for byte lanes ``j`` of ``x`` that are zero. The lowest flag is exact;
    a lane above a zero lane may be flagged too (the borrow), never a zero lane missed."""
    return (x - _LANES_LO) & ~x & _LANES_HI


@kernel
def _first_lane(flags: int) -> int:
    """Index of the lowest flagged lane of a ``_zero_lanes`` result (8 if none): the first
    empty slot of a word."""
    for j in range(8):
        if (flags >> (8 * j + 7)) & 1:
            return j
    return 8


@kernel
def suit_codes(hands: Ints, codes: Ints) -> None:
    """Fill ``codes[s]``: owners of the live cards of suit ``s``, highest first, 2 bits each."""
    for s in range(4):
        h1 = hands[1, s]
        h2 = hands[2, s]
        h3 = hands[3, s]
        live = hands[0, s] | h1 | h2 | h3
        code = 0
        sh = 0
        while live != 0:
            r = HI[live]
            live ^= 1 << r
            # branch-free owner: at most one of the three bits is set
            o = ((h1 >> r) & 1) | (((h2 >> r) & 1) << 1) | (((h3 >> r) & 1) * 3)
            code |= o << sh
            sh += 2
        codes[s] = code


@kernel
def codes_after_trick(hands: Ints, tc: Ints, ts: int, before: Ints, codes: Ints) -> None:
    """``codes`` (as ``suit_codes`` gives them) after the trick ``tc[ts:ts + 4]`` from the codes
    ``before`` it: each card's two bits are cut out at its place among its suit's live cards,
    instead of walking every live card again (a hot spot of hard solves)."""
    for s in range(4):
        codes[s] = before[s]
    for j in range(4):
        c = tc[ts + j]
        s = c // 13
        # the suit's live cards when this card is cut: the hands' and the trick's not yet cut
        lv = hands[0, s] | hands[1, s] | hands[2, s] | hands[3, s]
        for i in range(j, 4):
            if tc[ts + i] // 13 == s:
                lv |= 1 << (tc[ts + i] % 13)
        k = 2 * POP[lv >> (c % 13 + 1)]  # bits of the live cards above it
        code = codes[s]
        codes[s] = (code & ((1 << k) - 1)) | ((code >> (k + 2)) << k)


@kernel
def length_word(hands: Ints, leader: int) -> int:
    """``w0``: 15 suit lengths (the last one follows from the others) and the leader."""
    w = 0
    i = 0
    for q in range(4):
        for s in range(4):
            if q == 3 and s == 3:
                break
            w |= POP[hands[q, s]] << (4 * i)
            i += 1
    return w | (leader << 60)


@kernel
def _scan_word(word: int, pat: int) -> tuple[int, int]:
    """(flags of the lanes before the word's first empty slot whose byte equals the pattern's,
    index of that first empty lane or 8): one word of a bucket scan."""
    cand = _zero_lanes(word ^ pat)
    stop = _first_lane(_zero_lanes(word))
    if stop < 8:
        cand &= (1 << (8 * stop)) - 1
    return cand, stop


#: primes below 2**31 for the group hash: every product in it stays below 2**62
_P1 = 2147483629
_P2 = 2147483587


@kernel
def bucket_of(w0: int, tflags: int, codes: Ints, nslots: int, level: int) -> tuple[int, int]:
    """(first slot of the bucket, fingerprint 1..127) of a group at a hashing ``level``: the
    length word, target/rule bits and the owners of the top ``level`` cards of each suit.

    Polynomial hashes modulo primes below 2**31, so no product overflows. An earlier hash let
    int64 products wrap: with the JIT it gave other values than without it, and LLVM, to which
    signed overflow is undefined, compiled it to different values at call sites with constant
    arguments (found when a store and a lookup hashed in different kernels)."""
    m = (1 << (2 * level)) - 1
    h1 = level
    h2 = level + 7
    for x in (
        w0 & 0x7FFFFFFF,
        (w0 >> 31) & 0x7FFFFFFF,
        tflags,
        codes[0] & m,
        codes[1] & m,
        codes[2] & m,
        codes[3] & m,
    ):
        h1 = (h1 * 1000003 + x) % _P1
        h2 = (h2 * 999983 + x) % _P2
    nb = nslots // WAYS
    return (h1 & (nb - 1)) * WAYS, 1 + h2 % 127


@kernel
def pack(lower: int, upper: int, best: int, left: int, depth: int, drs: int) -> int:
    """An entry's data in one word: bounds (4 bits each), best lead + 1 (7 bits), tricks left
    (4), cards in the pattern (6), each suit's relevant depth (4 bits a suit)."""
    return lower | (upper << 4) | ((best + 1) << 8) | (left << 15) | (depth << 19) | (drs << 25)


@kernel
def d_lower(d: int) -> int:
    """Lower bound of packed entry data."""
    return d & 15


@kernel
def d_upper(d: int) -> int:
    """Upper bound of packed entry data."""
    return (d >> 4) & 15


@kernel
def d_best(d: int) -> int:
    """Best lead (relative code, -1 if none) of packed entry data."""
    return ((d >> 8) & 127) - 1


@kernel
def d_depth(d: int, s: int) -> int:
    """The depth suit ``s``'s result relied on, of packed entry data."""
    return (d >> (25 + 4 * s)) & 15


@kernel
def check_of(w0: int, k1: int, k2: int, d: int) -> int:
    """Check word of an entry (keys and data): two polynomial hashes modulo primes below 2**31
    over 31-bit pieces, so no product overflows (the same value with and without the JIT)."""
    h1 = 17
    h2 = 29
    for x in (
        w0 & 0x7FFFFFFF,
        w0 >> 31,
        k1 & 0x7FFFFFFF,
        k1 >> 31,
        k2 & 0x7FFFFFFF,
        k2 >> 31,
        d & 0x7FFFFFFF,
        d >> 31,
    ):
        h1 = (h1 * 1000003 + x) % _P1
        h2 = (h2 * 999983 + x) % _P2
    return (h1 << 31) | h2


@kernel
def _matches(k1: int, k2: int, f1: int, f2: int, codes: Ints) -> bool:
    """An entry with these key words (its ``w0`` already equal) covers a position with these
    suit codes."""
    if (k1 >> 60) != f1 or (k2 >> 60) != f2:
        return False
    for s in range(4):
        e = ((k1 if s < 2 else k2) >> (30 * (s % 2))) & _M30
        d = e >> 26
        if (codes[s] & ((1 << (2 * d)) - 1)) != (e & _M26):
            return False
    return True


@kernel
def tt_lookup(
    table: Table, base: int, fp: int, w0: int, f1: int, f2: int, codes: Ints, need: int
) -> tuple[int, int]:
    """Scan a bucket: (1, data) if an entry proves >= need, (0, data) if one proves < need,
    else (-1, data of an entry with a best lead or -1); ``data`` is the entry's packed word.

    A bucket fills from its first slot on (``tt_store`` takes the first empty slot and entries
    are only ever replaced), so the scan stops at the first empty slot. A full bucket spills
    into the next bucket of its chain (``base ^ (j * WAYS)``, ``j < SPILL``), scanned in turn.
    Slots are visited in order, eight fingerprints a word; only the group's are read, and an
    entry is believed only when its check word agrees with the keys and data read."""
    keys = table.keys
    info = table.info
    fps = table.fps
    hint = -1
    pat = fp * _LANES_LO
    for j in range(SPILL):
        b = base ^ (j * WAYS)
        for w in range(b // 8, (b + WAYS) // 8):
            cand, stop = _scan_word(fps[w], pat)
            for lane in range(8 if cand != 0 else 0):
                if not (cand >> (8 * lane + 7)) & 1:
                    continue
                i = w * 8 + lane
                if keys[0, i] != w0:
                    continue
                k1 = keys[1, i]
                k2 = keys[2, i]
                if not _matches(k1, k2, f1, f2, codes):
                    continue
                d = info[0, i]
                if info[1, i] != check_of(w0, k1, k2, d):
                    continue  # torn: another thread was writing it
                if d_lower(d) >= need:
                    return 1, d
                if d_upper(d) < need:
                    return 0, d
                if d_best(d) >= 0:
                    hint = d
            if stop < 8:
                return -1, hint
    return -1, hint


@kernel
def entry_marks(d: int, hands: Ints) -> int:
    """Relevant-card mask (52-bit) of an entry (its packed data ``d``) in the current position:
    per suit, the lowest of the top ``d_depth(d, s)`` live cards (the ranks its result relied
    on, without the cards the key holds only for hashing)."""
    mask = 0
    for s in range(4):
        n = d_depth(d, s)
        if n == 0:
            continue
        live = hands[0, s] | hands[1, s] | hands[2, s] | hands[3, s]
        r = -1
        for _ in range(n):
            r = HI[live]
            live ^= 1 << r
        mask |= 1 << (13 * s + r)
    return mask


@kernel
def tt_store(  # noqa: C901, PLR0912, PLR0913, PLR0915  (key, chain scan and victim in one pass over the table's arrays; a numba kernel)
    table: Table,
    gen: int,
    w0: int,
    f1: int,
    f2: int,
    codes: Ints,
    hands: Ints,
    rel: int,
    left: int,
    lower: int,
    upper: int,
    best: int,
) -> None:
    """Store bounds for every position agreeing on the cards at or above the relevant ones, in
    the chain of the deepest hashing level the pattern covers (``gen``: the search's
    generation)."""
    keys = table.keys
    info = table.info
    gens = table.gens
    fps = table.fps
    nslots = gens.shape[0]
    k1 = f1 << 60
    k2 = f2 << 60
    kk = TOPK
    depth = 0
    deep = True  # the pattern holds the top DEEP cards of every suit
    drs = 0  # the relevant depth of each suit, 4 bits each
    for s in range(4):
        live = hands[0, s] | hands[1, s] | hands[2, s] | hands[3, s]
        rs = (rel >> (13 * s)) & 0x1FFF & live
        n = POP[live]
        d = kk if n > kk else n
        if rs != 0:
            low = rs & -rs
            dr = POP[live & ~(low - 1)]
            drs |= dr << (4 * s)
            if dr > d:
                d = dr
        depth += d
        if d < (DEEP if n > DEEP else n):
            deep = False
        e = (d << 26) | (codes[s] & ((1 << (2 * d)) - 1))
        if s < 2:
            k1 |= e << (30 * s)
        else:
            k2 |= e << (30 * (s - 2))
    # the bucket (and, once it is full, the next of its chain) fills from the first slot on: the
    # first empty slot ends the scan and takes the entry; else the least valuable one is replaced
    base, fp = bucket_of(w0, f1 * 4 + f2, codes, nslots, DEEP if deep else TOPK)
    victim = -1
    pat = fp * _LANES_LO
    for j in range(SPILL):
        b = base ^ (j * WAYS)
        for w in range(b // 8, (b + WAYS) // 8):
            cand, stop = _scan_word(fps[w], pat)
            for lane in range(8 if cand != 0 else 0):
                if not (cand >> (8 * lane + 7)) & 1:
                    continue
                i = w * 8 + lane
                if keys[0, i] == w0 and keys[1, i] == k1 and keys[2, i] == k2:
                    d = info[0, i]
                    if info[1, i] != check_of(w0, k1, k2, d):
                        victim = i  # torn (two threads wrote it): write it afresh
                        break
                    lo = max(lower, d_lower(d))
                    hi = min(upper, d_upper(d))
                    bl = best if best >= 0 else d_best(d)
                    dm = 0
                    for s in range(4):
                        dr = (drs >> (4 * s)) & 15
                        do = d_depth(d, s)
                        dm |= (dr if dr > do else do) << (4 * s)
                    d = pack(lo, hi, bl, (d >> 15) & 15, (d >> 19) & 63, dm)
                    info[0, i] = d
                    info[1, i] = check_of(w0, k1, k2, d)
                    gens[i] = gen
                    return
            if victim >= 0:
                break
            if stop < 8:
                victim = w * 8 + stop
                break
        if victim >= 0:
            break
    if victim < 0:
        # the chain is full: keep the most general entries (shallow patterns answer the most
        # positions), entries of the current generation before older ones
        vscore = 1 << 30
        for j in range(SPILL):
            b = base ^ (j * WAYS)
            for i in range(b, b + WAYS):
                d = info[0, i]
                sc = 64 * ((d >> 15) & 15) - ((d >> 19) & 63)
                if gens[i] != gen:
                    sc -= 10000
                if sc < vscore:
                    vscore = sc
                    victim = i
    keys[0, victim] = w0
    keys[1, victim] = k1
    keys[2, victim] = k2
    d = pack(lower, upper, best, left, depth, drs)
    info[0, victim] = d
    info[1, victim] = check_of(w0, k1, k2, d)
    gens[victim] = gen
    sh = 8 * (victim % 8)
    fps[victim // 8] = (fps[victim // 8] & ~(0x7F << sh)) | (fp << sh)


@kernel
def rel_of(card: int, live_s: int) -> int:
    """Relative code of a card: suit * 16 + number of live cards of its suit above it."""
    r = card % 13
    above: int = POP[live_s >> (r + 1)]
    return (card // 13) * 16 + above


@kernel
def card_of_rel(rel: int, hands: Ints) -> int:
    """Absolute card for a relative code in the current position (-1 if none)."""
    s = rel // 16
    idx = rel % 16
    live = hands[0, s] | hands[1, s] | hands[2, s] | hands[3, s]
    n = 0
    while live != 0:
        r: int = HI[live]
        live ^= 1 << r
        if n == idx:
            return s * 13 + r
        n += 1
    return -1
