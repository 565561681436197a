replay traces/ewram/gawk-events.json --format=json
