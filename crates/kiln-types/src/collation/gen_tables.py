#!/usr/bin/env python3
"""Generates tables.rs (the collation weight tables) from observations of a real server.

Every number in tables.rs is a fact observed from a running MariaDB 10.11 (which
shares MySQL's general_ci / unicode_ci / latin1 behaviour and implements DUCET 14.0
as uca1400) plus Unicode character ages and the DUCET contraction list. No server
code is copied: we only record what WEIGHT_STRING(), CONVERT(), UPPER() and LOWER()
return for each character.

Sources:
  * MariaDB 10.11 over a socket (env MDB_SOCKET, default /tmp/mdbc.sock):
      - utf8mb4_uca1400_ai_ci primary weights   -> approximates MySQL utf8mb4_0900_ai_ci
      - utf8mb4_unicode_ci weights (UCA 4.0.0)   -> MySQL utf8mb4_unicode_ci
      - utf8mb4_general_ci weights               -> MySQL utf8mb4_general_ci (ranked)
      - latin1_swedish_ci / ascii_general_ci weights, latin1 -> utf8mb4 mapping,
        latin1 UPPER()/LOWER()
  * perl's Unicode::UCD (\\p{Present_In: 9.0}): which code points exist in Unicode 9.0,
    the version MySQL's 0900 collations are built on. Code points added later are
    unassigned for MySQL and get UCA 9.0 implicit weights.
  * perl's copy of the DUCET (Unicode/Collate/allkeys.txt): only the *list* of
    contraction sequences; their weights are again observed from the server.

Run: start MariaDB privately (commands in mod.rs, "What is exact"), then
  python3 gen_tables.py > tables.rs
"""
import os
import re
import subprocess
import sys

SOCK = os.environ.get("MDB_SOCKET", "/tmp/mdbc.sock")
ALLKEYS = "/usr/share/perl/5.36.0/Unicode/Collate/allkeys.txt"
MAXCP = 0x10FFFF


def query(sql):
    out = subprocess.run(
        ["mariadb", "-S", SOCK, "-N", "-B", "--default-character-set=utf8mb4", "test", "-e", sql],
        check=True, capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def units(h):
    assert len(h) % 4 == 0, h
    return [int(h[i:i + 4], 16) for i in range(0, len(h), 4)]


def present_in_9():
    out = subprocess.run(
        ["perl", "-e", 'for (0..0x10FFFF) { print "$_\\n" if chr($_) =~ /\\p{Present_In: 9.0}/ }'],
        check=True, capture_output=True, text=True).stdout
    return set(int(x) for x in out.split())


# UCA 9.0 implicit weights (UTS #10 section 10.1.3, with the 9.0 ideograph ranges).
CORE_HAN_COMPAT = {0xFA0E, 0xFA0F, 0xFA11, 0xFA13, 0xFA14, 0xFA1F, 0xFA21, 0xFA23, 0xFA24,
                   0xFA27, 0xFA28, 0xFA29}


def implicit_900(cp):
    if 0x4E00 <= cp <= 0x9FD5 or cp in CORE_HAN_COMPAT:
        base = 0xFB40
    elif (0x3400 <= cp <= 0x4DB5 or 0x20000 <= cp <= 0x2A6D6 or 0x2A700 <= cp <= 0x2B734
          or 0x2B740 <= cp <= 0x2B81D or 0x2B820 <= cp <= 0x2CEA1):
        base = 0xFB80
    elif 0x17000 <= cp <= 0x187EC or 0x18800 <= cp <= 0x18AF2:
        return [0xFB00, (cp - 0x17000) | 0x8000]
    else:
        base = 0xFBC0
    return [base + (cp >> 15), (cp & 0x7FFF) | 0x8000]


def implicit_400(cp):
    if 0x4E00 <= cp <= 0x9FA5 or cp in CORE_HAN_COMPAT:
        base = 0xFB40
    elif 0x3400 <= cp <= 0x4DB5:
        base = 0xFB80
    else:
        base = 0xFBC0
    return [base + (cp >> 15), (cp & 0x7FFF) | 0x8000]


def is_surrogate(cp):
    return 0xD800 <= cp <= 0xDFFF


def is_hangul(cp):
    return 0xAC00 <= cp <= 0xD7A3


def build(name, table, default):
    """Range table: STARTS[i] begins range i (which runs to STARTS[i+1]); DATA[i] says
    how to find weights there: kind 0 = the runtime default (implicit formula),
    1 = linear (base + (cp-start)*d, one unit each), 2 = per-code-point lists in
    OFFS/UNITS, 3 = ignorable (no units)."""
    cat = []  # per cp: None (default) or list of units
    for cp in range(MAXCP + 1):
        u = table(cp)
        cat.append(None if u is None or u == default(cp) else u)
    starts, data, offs, pool = [], [], [], []
    cp = 0
    while cp <= MAXCP:
        u = cat[cp]
        if u is None:
            end = cp
            while end + 1 <= MAXCP and cat[end + 1] is None:
                end += 1
            starts.append(cp); data.append(0)
        elif len(u) == 0:
            end = cp
            while end + 1 <= MAXCP and cat[end + 1] == []:
                end += 1
            starts.append(cp); data.append(3 << 30)
        else:
            run = linear_len(cat, cp)
            if run >= 3:
                d = 0 if run == 1 else cat[cp + 1][0] - u[0]
                end = cp + run - 1
                starts.append(cp); data.append((1 << 30) | (d << 16) | u[0])
            else:
                # pooled: extend while the next cp is explicit, non-ignorable and does
                # not begin a long linear run
                end = cp
                while (end + 1 <= MAXCP and cat[end + 1] and linear_len(cat, end + 1) < 3):
                    end += 1
                starts.append(cp); data.append((2 << 30) | len(offs))
                for c in range(cp, end + 1):
                    offs.append(len(pool)); pool.extend(cat[c])
                offs.append(len(pool))
        cp = end + 1
    assert len(pool) < 1 << 30 and max(pool) <= 0xFFFF
    return starts, data, offs, pool


def linear_len(cat, cp):
    u = cat[cp]
    if not u or len(u) != 1:
        return 0
    n = 1
    d = None
    while cp + n <= MAXCP:
        v = cat[cp + n]
        if not v or len(v) != 1:
            break
        step = v[0] - cat[cp + n - 1][0]
        if d is None:
            if step not in (0, 1):
                break
            d = step
        elif step != d:
            break
        n += 1
    return n


def emit_array(name, ty, vals, per_line=14):
    print(f"pub static {name}: [{ty}; {len(vals)}] = [")
    for i in range(0, len(vals), per_line):
        print("    " + ", ".join(str(v) for v in vals[i:i + per_line]) + ",")
    print("];")


def emit_table(prefix, t):
    starts, data, offs, pool = t
    emit_array(prefix + "_STARTS", "u32", starts)
    emit_array(prefix + "_DATA", "u32", data)
    emit_array(prefix + "_OFFS", "u32", offs)
    emit_array(prefix + "_UNITS", "u16", pool)


def main():
    rows = query(
        "select seq, hex(weight_string(convert(char(seq using utf32) using utf8mb4) collate utf8mb4_uca1400_ai_ci)),"
        " hex(weight_string(convert(char(seq using utf32) using utf8mb4) collate utf8mb4_unicode_ci)),"
        " hex(weight_string(convert(char(seq using utf32) using utf8mb4) collate utf8mb4_general_ci))"
        " from seq_0_to_1114111")
    assert len(rows) == MAXCP + 1
    w1400 = [units(r[1]) for r in rows]
    w400 = [units(r[2]) for r in rows]
    wgen = [units(r[3]) for r in rows]
    present = present_in_9()

    # --- utf8mb4_0900_ai_ci -------------------------------------------------------
    def t900(cp):
        if is_surrogate(cp) or is_hangul(cp):
            return None  # never decoded / decomposed at run time
        if cp not in present:
            return None  # unassigned in Unicode 9.0: implicit weight
        return w1400[cp]
    uca900 = build("UCA900", t900, implicit_900)

    # contractions: sequences from the DUCET list whose observed weight differs from
    # the concatenation of their characters' weights
    contr = []
    seqs = []
    for line in open(ALLKEYS):
        line = line.split("#")[0].strip()
        if not line or line.startswith("@"):
            continue
        cps = [int(x, 16) for x in line.split(";")[0].split()]
        if len(cps) > 1 and all(c in present for c in cps):
            seqs.append(cps)
    sql = " union all ".join(
        "select '%s', hex(weight_string(convert(convert(unhex('%s') using utf32) using utf8mb4)"
        " collate utf8mb4_uca1400_ai_ci))" % (" ".join(map(str, s)), "".join("%08X" % c for c in s))
        for s in seqs)
    for key, h in query(sql):
        cps = [int(x) for x in key.split()]
        got = units(h)
        cat = [w for c in cps for w in (t900(c) if t900(c) is not None else implicit_900(c))]
        if got != cat:
            contr.append((cps, got))
    contr.sort()
    # The ASCII fast path relies on ASCII characters never continuing a contraction.
    assert all(c >= 0x80 for cps, _ in contr for c in cps[1:])
    starters = {cps[0] for cps, _ in contr}

    # --- utf8mb4_unicode_ci (UCA 4.0.0; MariaDB's is MySQL's) ------------------------
    def t400(cp):
        if is_surrogate(cp):
            return None
        if cp > 0xFFFF:
            assert w400[cp] == [0xFFFD]
        return w400[cp]

    def d400(cp):
        return [0xFFFD] if cp > 0xFFFF else implicit_400(cp)
    uca400 = build("UCA400", t400, d400)
    # UCA 4.0.0 as MySQL uses it has no contractions: spot-check one DUCET contraction.
    chk = query("select hex(weight_string(concat('l', convert(char(0xB7 using utf32) using utf8mb4))"
                " collate utf8mb4_unicode_ci))")
    assert chk[0][0] == "%04X%04X" % (w400[ord('l')][0], w400[0xB7][0]), chk

    # --- utf8mb4_general_ci: rank the observed weights so bad bytes fit above -------
    for cp in range(0x10000, MAXCP + 1):
        assert wgen[cp] == [0xFFFD]
    distinct = sorted(set(w[0] for w in wgen[:0x10000]))
    rank = {w: i for i, w in enumerate(distinct)}
    assert len(distinct) + 256 <= 0xFFFF

    def tgen(cp):
        if is_surrogate(cp):
            return None
        return [rank[wgen[cp][0]]]
    general = build("GENERAL", tgen, lambda cp: [rank[0xFFFD]] if cp > 0xFFFF else None)

    # --- 8-bit charsets ---------------------------------------------------------------
    l1 = query(
        "select seq, hex(weight_string(convert(unhex(hex(seq)) using latin1) collate latin1_swedish_ci)),"
        " hex(weight_string(convert(unhex(hex(seq)) using ascii) collate ascii_general_ci)),"
        " hex(convert(convert(unhex(hex(seq)) using latin1) using utf8mb4)),"
        " hex(upper(convert(unhex(hex(seq)) using latin1))), hex(lower(convert(unhex(hex(seq)) using latin1)))"
        " from seq_0_to_255")
    assert len(l1) == 256
    swedish = [int(r[1], 16) for r in l1]
    ascii_ci = [int(r[2], 16) for r in l1]
    to_uni = [ord(bytes.fromhex(r[3]).decode("utf-8")) for r in l1]
    upper = [int(r[4], 16) for r in l1]
    lower = [int(r[5], 16) for r in l1]
    assert len(set(to_uni)) == 256

    print("// @generated by gen_tables.py from observations of MariaDB 10.11 (see that script).")
    print("// Do not edit by hand. Layout is explained in uca.rs.")
    print()
    print("/// Rank of the space character's weight in GENERAL_* (the PAD SPACE pad unit).")
    print(f"pub const GENERAL_SPACE: u16 = {rank[0x20]};")
    print("/// Highest rank in GENERAL_* (invalid bytes are given ranks above it).")
    print(f"pub const GENERAL_MAX: u16 = {len(distinct) - 1};")
    print("/// Rank of U+FFFD's weight: every code point above U+FFFF weighs this in general_ci.")
    print(f"pub const GENERAL_SUPPLEMENTARY: u16 = {rank[0xFFFD]};")
    print(f"pub const UCA400_SPACE: u16 = {w400[0x20][0]};")
    print()
    emit_table("UCA900", uca900)
    emit_table("UCA400", uca400)
    emit_table("GENERAL", general)
    print("/// Contractions for the 0900 table: code points (zero-padded to 3) and primary units.")
    print(f"pub static UCA900_CONTRACTIONS: [([u32; 3], &[u16]); {len(contr)}] = [")
    for cps, got in contr:
        assert len(cps) <= 3
        print("    ([%s], &[%s])," % (", ".join(str(c) for c in cps + [0] * (3 - len(cps))),
                                    ", ".join(str(g) for g in got)))
    print("];")
    # ASCII fast-path tables: the single unit of each ASCII character, or 0xFFFF where
    # the general path is needed (ignorable, expansion, contraction starter).
    def ascii_table(f, starters=()):
        out = []
        for cp in range(128):
            u = f(cp)
            out.append(u[0] if len(u) == 1 and cp not in starters else 0xFFFF)
        assert 0xFFFF not in [f(cp)[0] for cp in range(128) if f(cp)]
        return out
    print("/// ASCII fast path: unit of each ASCII character, 0xFFFF = take the general path.")
    emit_array("UCA900_ASCII", "u16", ascii_table(t900, starters), 16)
    emit_array("UCA400_ASCII", "u16", ascii_table(t400), 16)
    emit_array("GENERAL_ASCII", "u16", ascii_table(tgen), 16)
    emit_array("LATIN1_SWEDISH_CI", "u8", swedish, 16)
    emit_array("ASCII_GENERAL_CI", "u8", ascii_ci, 16)
    emit_array("LATIN1_TO_UNICODE", "u16", to_uni, 16)
    emit_array("LATIN1_UPPER", "u8", upper, 16)
    emit_array("LATIN1_LOWER", "u8", lower, 16)
    print("Contractions:", len(contr), "ranges:", len(uca900[0]), len(uca400[0]), len(general[0]),
          file=sys.stderr)


if __name__ == "__main__":
    main()
