-- Tests for databases.lua: destructive SQL through clients and MCP tools is
-- denied however it is spelled; reads, scoped writes and migrations pass.

local function sh(command)
  return fire("PreToolUse", { toolName = "Bash", toolCapabilities = { "shell" }, toolInput = { command = command },
    cwd = "/home/dev/app", sessionId = "t" })
end

local function mcp(tool, input)
  return fire("PreToolUse", { toolName = tool, toolCapabilities = { "mcp" }, toolInput = input,
    cwd = "/home/dev/app", sessionId = "t" })
end

local denied = {
  -- the plain forms
  { [[psql -c "DROP TABLE users"]], "DROP TABLE" },
  { [[psql -d app -c 'TRUNCATE orders']], "TRUNCATE" },
  { [[psql app -c "DELETE FROM users"]], "DELETE without WHERE" },
  { [[mysql -u root -e "delete from sessions"]], "DELETE without WHERE" },
  { [[sqlite3 dev.db "DROP TABLE migrations"]], "DROP TABLE" },
  { [[redis-cli FLUSHALL]], "FLUSHALL" },
  { [[psql -c "UPDATE users SET admin = true"]], "UPDATE without WHERE" },
  { [[psql -c "ALTER TABLE users DROP COLUMN email"]], "ALTER ... DROP" },
  { [[dropdb app_production]], "dropdb" },
  { [[mongosh app --eval 'db.dropDatabase()']], "dropDatabase" },
  { [[bin/rails db:drop]], "db:drop" },
  { [[npx prisma migrate reset --force]], "prisma reset" },
  -- bypass attempts: statements hidden after others, in comments' shadow, in strings' shadow
  { [[psql -c "SELECT 1; DROP TABLE users"]], "DROP TABLE" },
  { [[psql -c "select 1; -- a comment ends at the line's end
drop table users"]], "DROP TABLE" },
  { [[psql -c "DELETE FROM users -- WHERE id = 1"]], "DELETE without WHERE" },
  { [[psql -c "DELETE FROM users /* WHERE id = 1 */"]], "DELETE without WHERE" },
  { [[psql -c "DELETE FROM t WHERE 1=1"]], "always true" },
  { [[psql -c "DELETE FROM t WHERE id = 5 OR 'a' = 'a'"]], "always true" },
  { [[psql -c "SELECT ';'; TRUNCATE t"]], "TRUNCATE" },
  { [[psql -c "WITH gone AS (DELETE FROM users RETURNING id) SELECT count(*) FROM gone"]], "DELETE without WHERE" },
  { [[psql -c "EXPLAIN ANALYZE DELETE FROM users"]], "DELETE without WHERE" },
  { [[mysql -e "SELECT 1 /*!50000 ; DROP TABLE users */"]], "DROP TABLE" },
  { [[psql -c "SELECT \$\$;\$\$; DROP TABLE users"]], "DROP TABLE" },
  -- option spellings
  { [[psql --command="DROP TABLE users"]], "DROP TABLE" },
  { [[psql --comm 'DROP TABLE users']], "DROP TABLE" },
  { [[psql -XcDROP\ TABLE\ users]], "DROP TABLE" },
  { [[psql -c 'select 1' -c 'drop table users']], "DROP TABLE" },
  { [[mysql --execute='truncate logs' app]], "TRUNCATE" },
  { [[sqlite3 -cmd 'DELETE FROM t' dev.db .tables]], "DELETE without WHERE" },
  -- quoting, wrappers, chains, nesting, stdin
  { [[p""sql -c "DROP TABLE users"]], "DROP TABLE" },
  { [[sudo -u postgres psql -c 'DROP DATABASE app']], "DROP DATABASE" },
  { [[env PGPASSWORD=x /usr/bin/psql -c 'drop schema public cascade']], "DROP SCHEMA" },
  { [[cd db && psql -c 'TRUNCATE users']], "TRUNCATE" },
  { [[sh -c "psql -c 'DROP TABLE users'"]], "DROP TABLE" },
  { [[echo "DROP TABLE users;" | psql app]], "DROP TABLE" },
  { "psql app <<'EOF'\nBEGIN;\nDELETE FROM users;\nCOMMIT;\nEOF", "DELETE without WHERE" },
  { [[mysql app <<< 'drop table users']], "DROP TABLE" },
  { [[docker exec -i db psql -U postgres -c "DROP TABLE users"]], "DROP TABLE" },
  { [[kubectl exec -it pg-0 -- psql -c 'truncate audit']], "TRUNCATE" },
  { [[docker compose exec redis redis-cli flushdb]], "FLUSHDB" },
  { [[echo FLUSHALL | redis-cli -h cache]], "FLUSHALL" },
  { [[psql -c "$SQL"]], "only known when the command runs" },
  { [[psql -c "DROP TABLE 'unterminated]], "could not be read" },
}

for _, c in ipairs(denied) do
  test("denies " .. c[1]:gsub("\n", "\\n"), function()
    expect.denied(sh(c[1]), c[2])
  end)
end

local allowed = {
  [[psql -c "SELECT * FROM users LIMIT 10"]],
  [[psql app -c "DELETE FROM sessions WHERE expires_at < now()"]],
  [[psql -c "UPDATE users SET admin = false WHERE id = 42"]],
  [[mysql -e "select count(*) from orders where created_at > '2024-01-01'"]],
  [[sqlite3 dev.db "SELECT name FROM sqlite_master"]],
  [[sqlite3 dev.db .tables]],
  [[psql -f migrations/001_init.sql]],
  [[psql -c "CREATE TABLE t (id int REFERENCES u ON DELETE CASCADE)"]],
  [[psql -c "SELECT * FROM jobs FOR UPDATE SKIP LOCKED"]],
  [[psql -c "INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET n = 2 WHERE t.id = 1"]],
  [[mysql -e "INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE n = n + 1"]],
  [[psql -c "SELECT 'DROP TABLE users'"]],
  [[redis-cli GET session:42]],
  [[redis-cli -n 2 KEYS 'user:*']],
  [[bin/rails db:migrate]],
  [[npx prisma@5.22.0 migrate dev]],
  [[pg_dump app > backup.sql]],
  [[grep -rn "DROP TABLE" migrations/]],
  [[git commit -m "drop the users table from the docs"]],
  [[mongosh app --eval 'db.users.find({active: true})']],
}

for _, cmd in ipairs(allowed) do
  test("allows " .. cmd, function()
    expect.no_objection(sh(cmd))
  end)
end

test("denies a DROP through an MCP database tool", function()
  expect.denied(mcp("mcp__postgres__query", { sql = "DROP TABLE users" }), "DROP TABLE")
end)

test("denies a DELETE without WHERE through an MCP tool's query argument", function()
  expect.denied(mcp("mcp__supabase__execute_sql", { project_id = "x", query = "delete from profiles" }),
    "DELETE without WHERE")
end)

test("denies a redis flush tool", function()
  expect.denied(mcp("mcp__redis__flushall", {}), "FLUSH")
end)

-- Whether an MCP tool belongs to a database server is decided first, in
-- one look at its name: these are the database tools closest to the calls
-- that look passes.
test("a database server is known in any case and anywhere in the tool's name", function()
  expect.denied(mcp("mcp__PostgreSQL__Query", { sql = "DROP TABLE users" }), "DROP TABLE")
  expect.denied(mcp("mcp__analytics_db__execute", { query = "TRUNCATE events" }), "TRUNCATE")
  expect.denied(mcp("mcp__warehouse__run_sql", { statement = "delete from orders" }), "DELETE without WHERE")
  expect.denied(mcp("mcp__Redis__FLUSHDB", {}), "FLUSH")
  expect.denied(mcp("mcp_mongo_atlas_run", { command = "db.users.drop()" }), "drop()")
end)

test("denies SQL an MCP tool receives as a table (it cannot be checked)", function()
  expect.denied(mcp("mcp__postgres__query", { sql = { "DROP TABLE users" } }), "cannot be checked")
end)

test("allows a SELECT through an MCP database tool", function()
  expect.no_objection(mcp("mcp__postgres__query", { sql = "SELECT id FROM users WHERE email = 'a@b.c'" }))
end)

test("allows other MCP servers' tools whatever their arguments", function()
  expect.no_objection(mcp("mcp__github__create_issue", { title = "DROP TABLE users is slow", body = "x" }))
end)
