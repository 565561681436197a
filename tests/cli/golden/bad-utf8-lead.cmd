replay tests/cli/data/bad-utf8-lead.json
