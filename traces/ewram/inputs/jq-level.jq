# jq-level.jq: summarise a level file (agbsim trace input for jq 1.6)
.entities as $e
| {
    level: .level,
    by_kind: ($e | group_by(.kind) | map({kind: .[0].kind, n: length, hp: (map(.hp) | add)})),
    zones: ($e | map(.tags[1]) | unique),
    items: ([$e[].inventory[]] | group_by(.item) | map({(.[0].item): (map(.count) | add)}) | add),
    strongest: ($e | sort_by(-.hp) | .[:10] | map("\(.kind)#\(.id)@\(.x),\(.y)")),
    grid: ([range(0; .height; 4)] | map(. as $y | [range(0; 64; 4)] | map(. as $x | [$e[] | select(.x >= $x and .x < $x + 4 and .y >= $y and .y < $y + 4)] | length) | map(tostring) | join("")))
  }
