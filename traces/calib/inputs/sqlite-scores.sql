-- sqlite-scores.sql: calibration workload for the cycle model (not a shipped trace): a
-- high-score and replay-log database with an index, grouped queries and deletes.
PRAGMA page_size = 1024;
PRAGMA cache_size = 12;
CREATE TABLE player (id INTEGER PRIMARY KEY, tag TEXT, country TEXT);
CREATE TABLE score (player_id INTEGER, level INTEGER, points INTEGER, replay BLOB);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 150)
INSERT INTO player SELECT i, 'P' || printf('%04d', i * 7919 % 10000), substr('USJPDEFRBRKR', 1 + 2 * (i % 6), 2) FROM n;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 700)
INSERT INTO score SELECT 1 + (i * 31) % 150, 1 + i % 12, (i * 7717) % 100000, zeroblob(16 + (i * 13) % 200) FROM n;
CREATE INDEX score_level ON score(level, points DESC);
SELECT level, max(points), count(*) FROM score GROUP BY level;
SELECT p.tag, s.points FROM score s JOIN player p ON p.id = s.player_id WHERE s.level = 3 ORDER BY s.points DESC LIMIT 10;
DELETE FROM score WHERE points < 20000;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
INSERT INTO score SELECT 1 + (i * 17) % 150, 1 + i % 12, (i * 104729) % 100000, zeroblob(8 + i % 120) FROM n;
SELECT country, avg(points) FROM score s JOIN player p ON p.id = s.player_id GROUP BY country ORDER BY 2 DESC;
UPDATE player SET tag = tag || '*' WHERE id IN (SELECT player_id FROM score WHERE points > 90000);
