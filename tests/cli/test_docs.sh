# test_docs.sh - the documents tell the truth and stay user documents. doc/keys.md,
# doc/options.md, the OPTIONS and KEYS of dcutop.1 and the README's screenshot are what
# `make docs` writes from the program's own tables (the key table, the option table) and
# screen; every option and every key is in them; and no user document names a source file,
# an issue, a commit or a path outside the repository.
. tests/cli/lib.sh

B=$(dirname "$DCUTOP")
[ "$B" = . ] && B=build
DOCGEN=${DOCGEN:-$B/tools/docgen}
USERDOCS="README.md doc/manual.md doc/keys.md doc/options.md doc/formats.md dcutop.1"

# --- generated files are current -------------------------------------------------------------
if [ -x "$DOCGEN" ] && DCUTOP="$DCUTOP" sh tools/gen-docs.sh "$DOCGEN" "$TMP/gen" 2>"$TMP/gen.err"; then
    ok "make docs runs (tools/gen-docs.sh)"
else
    notok "make docs runs (tools/gen-docs.sh with $DOCGEN)"; cat "$TMP/gen.err"
fi
for f in doc/keys.md doc/options.md dcutop.1 README.md; do
    if [ -f "$f" ] && cmp -s "$f" "$TMP/gen/$f"; then
        ok "$f is current (make docs leaves it as it is)"
    else
        notok "$f is current: run make docs and commit the result"
        [ -f "$f" ] && diff "$f" "$TMP/gen/$f" | head -10 | sed 's/^/#   /'
    fi
done
check "the README has a screenshot block" grep -q '^<!-- BEGIN SCREENSHOT' README.md
check "the man page has a generated block" grep -q '^\.\\" BEGIN GENERATED' dcutop.1

# --- every option is documented --------------------------------------------------------------
"$DCUTOP" --help | grep -oE '^ {2,6}(-[a-zA-Z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z][a-z-]*$' |
    sort -u >"$TMP/help.opts"
# the long options the parser accepts (its getopt_long table)
grep -oE '^ *\{"[a-z][a-z-]*", *(no|required|optional)_argument' src/app/cli.c |
    sed 's/^ *{"\([^"]*\)".*/--\1/' | sort -u >"$TMP/parser.opts"
check "the option table is read (over 30 options)" test "$(wc -l <"$TMP/parser.opts")" -gt 30
same "every option the parser accepts is in --help" "" \
    "$(comm -23 "$TMP/parser.opts" "$TMP/help.opts" | tr '\n' ' ')"
grep -oE -- '^\| `(-[a-zA-Z], )?--[a-z][a-z-]*' doc/options.md 2>/dev/null | grep -oE -- '--[a-z][a-z-]*$' |
    sort -u >"$TMP/md.opts"
same "doc/options.md lists every option, each as a table row" "" \
    "$(cat "$TMP/help.opts" "$TMP/parser.opts" | sort -u | comm -23 - "$TMP/md.opts" | tr '\n' ' ')"
sed -n '/^\.SH OPTIONS/,/^\.SH KEYS/p' dcutop.1 | sed 's/\\-/-/g' | grep -A1 '^\.TP' |
    grep -oE -- '^\.B (-[a-zA-Z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z][a-z-]*$' | sort -u >"$TMP/man.opts"
same "the OPTIONS of dcutop.1 list every option" "" \
    "$(cat "$TMP/help.opts" "$TMP/parser.opts" | sort -u | comm -23 - "$TMP/man.opts" | tr '\n' ' ')"
for o in -o -q -h -V; do
    check "the short option $o is documented (options.md, dcutop.1)" sh -c \
        "grep -q -- '^| \`$o, --' doc/options.md && sed 's/\\\\-/-/g' dcutop.1 | grep -q -- '^\.B $o, --'"
done

# --- every key is documented ------------------------------------------------------------------
# The program's help screen (drawn headless) is the other reading of the key table: each of
# its rows (screen, keys, action) must be a row of doc/keys.md.
DCUTOP="$DCUTOP" sh tests/tools/key-table.sh | cut -d'|' -f2-4 | sed 's/ *| */|/g' | sort -u >"$TMP/keys.prog"
check "the help screen lists some keys (key table read)" test "$(wc -l <"$TMP/keys.prog")" -gt 40
awk '/^`bind` name: `/ { s = $0; sub(/^`bind` name: `/, "", s); sub(/`.*/, "", s)
                        if (s == "generic") s = "every screen"; next }
     /^## Without/ { s = "" }
     s != "" && /^\| `/ { n = split($0, c, "|"); print " " s " | " c[2] " | " c[3] }' doc/keys.md 2>/dev/null |
    sed 's/ *| */|/g' | sort -u >"$TMP/keys.doc"
# the "Every screen" keys are shown by the help as they act on its screen (Summary); compare
# those by action only, the screens' own rows whole
sed 's/^|every screen|[^|]*|/|every screen||/' "$TMP/keys.prog" | sort -u >"$TMP/kp"
sed 's/^|every screen|[^|]*|/|every screen||/' "$TMP/keys.doc" | sort -u >"$TMP/kd"
same "doc/keys.md has every row of the help screen (screen, keys, action) and no other" "" \
    "$(diff "$TMP/kp" "$TMP/kd" | grep '^[<>]' | tr '\n' ' ')"
grep -oE '^ *_\([A-Z_]+, "[a-z-]+"' include/dcutop/keymap.h | sed 's/.*"\(.*\)"/\1/' |
    grep -vx none | sort -u >"$TMP/actions"
check "the action list is read (over 40 actions)" test "$(wc -l <"$TMP/actions")" -gt 40
missing=""
for a in $(cat "$TMP/actions"); do
    grep -q "| \`$a\` |" doc/keys.md 2>/dev/null || missing="$missing keys.md:$a"
    sed 's/\\-/-/g' dcutop.1 | grep -q "($a)\$" || missing="$missing dcutop.1:$a"
done
same "every action is in doc/keys.md and in the KEYS of dcutop.1" "" "$missing"

# --- user documents are user documents --------------------------------------------------------
for f in $USERDOCS; do
    check "$f exists" test -s "$f"
done
check "README.md is a front page (at most 250 lines)" test "$(wc -l <README.md)" -le 250
# prose without code: fenced blocks, indented blocks and `code spans` left out, for the
# checks whose patterns also occur in real data (gdb frames #0, hex addresses)
prose() {
    awk '/^```/ { f = !f; next } !f && !/^    / && !/^\t/' "$1" | sed 's/`[^`]*`//g'
}
for f in $USERDOCS; do
    [ -f "$f" ] || continue
    hits=$(grep -nE 'src/|[A-Za-z0-9_]\.[ch]([^A-Za-z0-9_]|$)' "$f" | head -3)
    same "$f names no source file (src/, *.c, *.h)" "" "$hits"
    hits=$(grep -nE '\.\./shared|shared/sample-traces|/work/' "$f" | head -3)
    same "$f names no path outside the repository (the workplace's shared folder)" "" "$hits"
    hits=$(grep -niE '(^|[^A-Za-z])issues? #?[0-9]+' "$f" | head -3)
    same "$f names no issue (issue N)" "" "$hits"
    hits=$(prose "$f" | grep -nE '(^|[^A-Za-z0-9_&])#[0-9]+([^0-9A-Za-z_]|$)' | head -3)
    same "$f names no issue (#N)" "" "$hits"
    hits=$(grep -noE '(^|[^0-9A-Za-z_])[0-9a-f]{7,40}([^0-9A-Za-z_]|$)' "$f" |
           awk -F: '$2 ~ /[0-9]/ && $2 ~ /[a-f]/' | head -3)
    same "$f names no commit hash" "" "$hits"
done
# the sample paths the documents name exist in the repository
for f in $USERDOCS; do
    [ -f "$f" ] || continue
    for p in $(grep -oE '(sample-traces|tests/data/real)/[A-Za-z0-9_][A-Za-z0-9_.-]*' "$f" | sort -u); do
        check "$f: $p exists in the repository" test -e "$p"
    done
done
# the README links into doc/ and every link there resolves
for f in README.md doc/manual.md; do
    [ -f "$f" ] || continue
    for l in $(grep -oE '\]\([^)#]+' "$f" | sed 's/^](//' | grep -v '://' | sort -u); do
        dir=$(dirname "$f")
        check "$f links to $l, which exists" test -e "$dir/$l"
    done
done
# links to a heading (file#anchor) land on one: GitHub's anchors, lower case, punctuation
# dropped, spaces as hyphens
for f in README.md doc/manual.md doc/formats.md; do
    [ -f "$f" ] || continue
    dir=$(dirname "$f")
    for l in $(grep -oE '\]\([^)]*#[^)]+\)' "$f" | sed 's/^](//; s/)$//' | sort -u); do
        target=${l%%#*}
        anchor=${l#*#}
        if [ -n "$target" ]; then target="$dir/$target"; else target=$f; fi
        grep -E '^#+ ' "$target" 2>/dev/null | sed 's/^#* //' | tr 'A-Z' 'a-z' |
            sed 's/[^a-z0-9 _-]//g; s/ /-/g' >"$TMP/slugs"
        check "$f: the link $l lands on a heading" grep -qx -- "$anchor" "$TMP/slugs"
    done
done

# the project carries what it uses: no file of it names the workplace's shared folder (the
# needle is built so that this file does not name it either)
needle="..$(printf /)shared"
if command -v git >/dev/null 2>&1 && git rev-parse --git-dir >/dev/null 2>&1; then
    same "no tracked file names $needle" "" "$(git ls-files -z | xargs -0 grep -IlF -- "$needle" 2>/dev/null | head -5)"
else
    same "no file names $needle" "" "$(grep -rIlF --exclude-dir=build --exclude-dir=build-asan --exclude-dir=build-fuzz -- "$needle" . | head -5)"
fi
