-- sqlite-inventory.sql: an item/inventory database workload for sqlite3 (agbsim trace input).
-- Run as: sqlite3 :memory: < sqlite-inventory.sql   (in-memory DB: every page lives in the heap)
PRAGMA page_size = 1024;
PRAGMA cache_size = 16;
CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, kind TEXT, weight INTEGER, price INTEGER);
CREATE TABLE owner (id INTEGER PRIMARY KEY, name TEXT NOT NULL, zone INTEGER);
CREATE TABLE inv (owner_id INTEGER, item_id INTEGER, count INTEGER, note TEXT);

WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
INSERT INTO item SELECT i, 'item-' || i || '-' || substr('abcdefghijklmnopqrstuvwxyz', 1 + i % 26, 3 + i % 7),
       CASE i % 5 WHEN 0 THEN 'weapon' WHEN 1 THEN 'armor' WHEN 2 THEN 'potion' WHEN 3 THEN 'key' ELSE 'misc' END,
       1 + (i * 7) % 40, 5 + (i * 13) % 500 FROM n;

WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120)
INSERT INTO owner SELECT i, 'npc_' || i, i % 9 FROM n;

WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
INSERT INTO inv SELECT 1 + (i * 37) % 120, 1 + (i * 101) % 200, 1 + i % 12,
       CASE WHEN i % 4 = 0 THEN 'found in zone ' || (i % 9) ELSE NULL END FROM n;

CREATE INDEX inv_owner ON inv(owner_id);
CREATE INDEX inv_item ON inv(item_id, count);
CREATE INDEX item_kind ON item(kind, price);

SELECT o.zone, count(*), sum(i.weight * v.count) FROM inv v JOIN item i ON i.id = v.item_id
  JOIN owner o ON o.id = v.owner_id GROUP BY o.zone ORDER BY o.zone;
SELECT kind, count(*), avg(price), max(price) FROM item GROUP BY kind ORDER BY kind;
SELECT o.name, group_concat(i.name, ',') FROM owner o JOIN inv v ON v.owner_id = o.id
  JOIN item i ON i.id = v.item_id WHERE o.id % 17 = 0 GROUP BY o.id ORDER BY o.id;

UPDATE inv SET count = count + 1, note = coalesce(note, '') || ' +1' WHERE item_id % 3 = 0;
DELETE FROM inv WHERE count > 10;
INSERT INTO inv SELECT owner_id, 1 + (item_id * 3) % 200, 1, 'traded' FROM inv WHERE owner_id % 5 = 0;

SELECT count(*), sum(count), count(note) FROM inv;
SELECT i.kind, o.zone, sum(v.count) AS c FROM inv v JOIN item i ON i.id = v.item_id
  JOIN owner o ON o.id = v.owner_id GROUP BY 1, 2 HAVING c > 40 ORDER BY c DESC LIMIT 10;
SELECT name FROM item WHERE id IN (SELECT item_id FROM inv GROUP BY item_id HAVING count(*) > 4) ORDER BY id LIMIT 5;
DROP INDEX inv_item;
SELECT count(*) FROM inv;
