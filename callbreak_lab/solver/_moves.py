"""Numba kernels: trick state, legal cards, equivalent cards and move ordering.

A hand in the kernels is a row ``hands[seat]`` of four 13-bit suit masks. ``tc`` holds the cards
of the current trick (and of the whole search line): the trick containing ply ``p`` starts at
``tc[ts]`` and ``pos`` cards of it are on the table.
"""

from __future__ import annotations

from ._consts import ABOVE, HI, LO, POP, RANK, SUIT, Ints, kernel


@kernel
def beats(c: int, b: int) -> bool:
    """True when card ``c``, played after ``b``, would beat it (spades are trump)."""
    cs: int = SUIT[c]
    bs: int = SUIT[b]
    if cs == bs:
        return c > b
    return cs == 3


@kernel
def trick_info(tc: Ints, ts: int, pos: int) -> tuple[int, int, int]:
    """(led suit, winning card so far, offset of its player) of the ``pos`` cards at ``tc[ts:]``."""
    best = tc[ts]
    led = SUIT[best]
    wo = 0
    for i in range(1, pos):
        c = tc[ts + i]
        if beats(c, best):
            best = c
            wo = i
    return led, best, wo


@kernel
def legal_suits(  # noqa: C901, PLR0912  (the legal-card rule case by case, as docs/rules.md states it; a numba kernel)
    hand: Ints, pos: int, led: int, best: int, mb: int, vr: int, ban: int, out: Ints
) -> int:
    """Fill ``out[s]`` with the legal cards of suit ``s`` for ``hand`` (a row of suit masks).

    ``mb`` must_beat 0/1, ``vr`` void rule 0 strict / 1 win_only, ``ban`` 1 when the first-trick
    spade-lead ban applies to this lead. Returns a 52-bit mask of the trick card whose rank was
    compared (``best``) or 0, for partition search.
    """
    for s in range(4):
        out[s] = 0
    if pos == 0:
        if ban and (hand[0] | hand[1] | hand[2]) != 0:
            for s in range(3):
                out[s] = hand[s]
        else:
            for s in range(4):
                out[s] = hand[s]
        return 0
    f = hand[led]
    bs = SUIT[best]
    if f != 0:
        if mb and bs == led:
            b = f & ABOVE[RANK[best] + 1]
            out[led] = b if b != 0 else f
            return 1 << best
        out[led] = f
        return 0
    sp = hand[3]
    mark = 0
    if bs == 3:
        higher = sp & ABOVE[RANK[best] + 1]
        if sp != 0:
            mark = 1 << best
    else:
        higher = sp
    if vr == 0:
        if sp != 0:
            out[3] = higher if higher != 0 else sp
            return mark
    elif higher != 0:
        out[3] = higher
        return mark
    for s in range(4):
        out[s] = hand[s]
    return mark


@kernel
def can_beat(hand: Ints, c: int, led: int) -> bool:
    """Whether a player holding ``hand`` could beat card ``c`` in a trick led in suit ``led``."""
    cs: int = SUIT[c]
    f: int = hand[led]
    if f != 0:
        return cs == led and (f & ABOVE[RANK[c] + 1]) != 0
    sp: int = hand[3]
    if cs == 3:
        higher: int = ABOVE[RANK[c] + 1]
        return (sp & higher) != 0
    return sp != 0


@kernel
def rep_of(card: int, mine: int, live: int) -> int:
    """The lowest card of the run of equivalent cards (of one suit) that contains ``card``."""
    s: int = SUIT[card]
    r: int = RANK[card]
    while True:
        below = live & ((1 << r) - 1)
        if below == 0:
            return s * 13 + r
        nr = HI[below]
        if (mine >> nr) & 1 == 0:
            return s * 13 + r
        r = nr


@kernel
def run_above(card: int, mine: int, live: int) -> int:
    """52-bit mask of the cards of ``mine`` (a 13-bit suit mask) equivalent to ``card`` and
    above it."""
    s = SUIT[card]
    r = RANK[card]
    m = 0
    while True:
        above = live & ABOVE[r + 1]
        if above == 0:
            return m
        r = LO[above]
        if (mine >> r) & 1 == 0:
            return m
        m |= 1 << (13 * s + r)


@kernel
def coalition_takes(hands: Ints, leader: int, target: int, c: int) -> bool:  # noqa: PLR0911  (one return per case; a numba kernel)
    """Whether the other seats surely win the trick when ``leader`` (not the target) leads
    ``c``: a partner covers the target's best card of the suit or ruffs it, or tops the target's
    ruff (a move-ordering guess: the must-follow rules aside, it is not a proof)."""
    s = SUIT[c]
    r = RANK[c]
    ts = hands[target, s]
    if ts != 0:
        top = HI[ts]
        if r > top:
            return True
        for j in range(1, 4):
            q = (leader + j) & 3
            if q == target:
                continue
            h = hands[q, s]
            if h != 0:
                if HI[h] > top:
                    return True
            elif s != 3 and hands[q, 3] != 0:
                return True
        return False
    tsp = hands[target, 3]
    if s == 3 or tsp == 0:
        return True
    top = HI[tsp]
    for j in range(1, 4):
        q = (leader + j) & 3
        if q != target and hands[q, s] == 0 and HI[hands[q, 3]] > top:
            return True
    return False


@kernel
def lead_replies(hands: Ints, mover: int, c: int, mb: int, vr: int, live: Ints, out: Ints) -> int:
    """How many distinct cards (one per run of equivalent cards) the three other seats may play
    to the lead ``c`` by ``mover``, summed (each judged against ``c`` alone, as if the first to
    follow). ``live``: the live cards of each suit; ``out``: scratch for the legal cards."""
    s = SUIT[c]
    total = 0
    for j in range(1, 4):
        q = (mover + j) & 3
        legal_suits(hands[q], 1, s, c, mb, vr, 0, out)
        for t in range(4):
            m = out[t]
            while m != 0:
                r = LO[m]
                m &= m - 1
                below = live[t] & ((1 << r) - 1)
                if below != 0 and (hands[q, t] >> HI[below]) & 1:
                    continue
                total += 1
    return total


@kernel
def gen_moves(  # noqa: C901, PLR0912, PLR0913, PLR0915  (generation and ordering in one pass; a numba kernel takes its state as scalars and scratch arrays)
    hands: Ints,
    mover: int,
    target: int,
    leader: int,
    pos: int,
    tc: Ints,
    ts: int,
    led: int,
    best: int,
    wo: int,
    mb: int,
    vr: int,
    ban: int,
    hint: int,
    killer: int,
    use_equiv: int,
    use_order: int,
    use_mob: int,
    mv: Ints,
    p: int,
    legal: Ints,
    live: Ints,
    scores: Ints,
    spare: Ints,
) -> tuple[int, int]:
    """Write the moves to try at ply ``p`` into ``mv[p]`` (best first); return (how many, mask
    of the trick card whose rank the legal-card rules compared).

    One card per run of equivalent cards when ``use_equiv``; ``hint`` is a card to try first
    (the table's best lead) or -1; ``killer`` a lead to try next (the last lead that cut off
    at this ply, a "killer move"; leads only: on following cards it cost more than it saved) or
    -1. ``use_mob``: the target's leads that the others can answer in fewest ways first (after
    the table's lead, the killer and sure winners). ``led``, ``best``, ``wo``: the trick so far
    (``trick_info``, unused on lead). ``legal``, ``live``, ``scores``, ``spare`` are scratch
    arrays.
    """
    hand = hands[mover]
    lmark = legal_suits(hand, pos, led, best, mb, vr, ban, legal)
    # the live cards of each suit: every suit's on lead (the table's lead, the killer and the
    # replies count need them), only the legal suits' when following
    for s in range(4):
        if pos == 0 or legal[s] != 0:
            live[s] = hands[0, s] | hands[1, s] | hands[2, s] | hands[3, s]
    for i in range(pos):
        c = tc[ts + i]
        live[SUIT[c]] |= 1 << RANK[c]
    is_max = mover == target
    side_winning = False
    if pos > 0:
        ws = (leader + wo) & 3
        side_winning = (ws == target) == is_max
        if side_winning and pos < 3:
            # only count it as winning when no later enemy can beat it
            for j in range(pos + 1, 4):
                q = (leader + j) & 3
                if (q == target) != is_max and can_beat(hands[q], best, led):
                    side_winning = False
                    break
    hint_rep = -1
    kill_rep = -1
    if pos == 0:  # only leads are ordered by them
        if killer >= 0 and (hand[SUIT[killer]] >> RANK[killer]) & 1:
            kill_rep = rep_of(killer, hand[SUIT[killer]], live[SUIT[killer]])
        if hint >= 0 and (hand[SUIT[hint]] >> RANK[hint]) & 1:
            hint_rep = rep_of(hint, hand[SUIT[hint]], live[SUIT[hint]])
    n = 0
    for s in range(4):
        m = legal[s]
        while m != 0:
            r = LO[m]
            m &= m - 1
            if use_equiv:
                below = live[s] & ((1 << r) - 1)
                if below != 0 and (hand[s] >> HI[below]) & 1:
                    continue  # not the lowest card of its run
            c = s * 13 + r
            sc = 0
            if use_order:
                spade_pen = 13 if s == 3 else 0
                if pos == 0:
                    enemy_beats = False
                    for q in range(4):
                        if q != mover and (q == target) != is_max and can_beat(hands[q], c, s):
                            enemy_beats = True
                            break
                    # leads, best first: the table's lead, the ply's killer, then for the
                    # other seats a lead a partner surely wins (ranked above cashing: below it
                    # saved nothing), from the longest suit first, winners nobody beats
                    # (highest first), the rest low from short suits (the nodes each saves:
                    # benchmarks/HISTORY.md, "Kept" and "Figures from the source comments")
                    if not enemy_beats:
                        sc = 200 + r
                    elif not is_max and coalition_takes(hands, leader, target, c):
                        sc = 250 - r + 2 * POP[hand[s]]
                    elif is_max and use_mob:
                        # a lead the others can answer in few ways keeps the proof that the
                        # target reaches its count small (the target's nodes need one good
                        # card, the others' nodes every card; benchmarks/HISTORY.md,
                        # "Mobility ordering")
                        sc = 100 - 3 * lead_replies(hands, mover, c, mb, vr, live, spare) - r
                    else:
                        sc = 40 - r - POP[hand[s]]
                    if c == hint_rep:
                        sc += 1000
                    elif c == kill_rep:
                        sc += 500
                elif beats(c, best):
                    if side_winning:
                        sc = -r - spade_pen - 30
                    elif pos == 3:
                        sc = 100 - r
                    else:
                        sure = True
                        for j in range(pos + 1, 4):
                            q = (leader + j) & 3
                            if (q == target) != is_max and can_beat(hands[q], c, led):
                                sure = False
                                break
                        sc = 100 - r if sure else 50 + r
                else:
                    sc = -r - spade_pen
            # insertion sort, highest score first
            i = n
            while i > 0 and scores[i - 1] < sc:
                scores[i] = scores[i - 1]
                mv[p, i] = mv[p, i - 1]
                i -= 1
            scores[i] = sc
            mv[p, i] = c
            n += 1
    return n, lmark
