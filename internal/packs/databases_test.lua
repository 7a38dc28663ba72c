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
  -- SQL typed as a command line, in any case, quoting and dialect
  { [[DROP TABLE IF EXISTS accounts;]], "DROP TABLE" },
  { [[drop schema reporting cascade]], "DROP SCHEMA" },
  { [[Truncate Table audit_log RESTART IDENTITY;]], "TRUNCATE" },
  { [[TRUNCATE events]], "TRUNCATE" },
  { [[DELETE FROM "Billing"."Invoices";]], "DELETE without WHERE" },
  { "DELETE FROM `orders`;", "DELETE without WHERE" },
  { [[delete from app.sessions where 1=1]], "always true" },
  { [[UPDATE accounts SET balance = 0;]], "UPDATE without WHERE" },
  { [[alter table users drop column email]], "ALTER ... DROP" },
  { [[echo start; DROP DATABASE shop; echo done]], "DROP DATABASE" },
  -- every privilege on every database
  { [[GRANT ALL PRIVILEGES ON *.* TO 'ops'@'%' WITH GRANT OPTION;]], "GRANT ALL ON *.*" },
  { [[mysql -u root -e "grant all on *.* to 'bot'@'localhost'"]], "GRANT ALL ON *.*" },
  -- a client's shell escape runs a command no guard reads
  { [[mysql -e '\! sh']], "shell command run from the database client" },
  { [[psql -c '\! rm -rf ~']], "shell command run from the database client" },
  { [[sqlite3 :memory: '.shell id']], "(.shell)" },
  { [[sqlite3 x.db -cmd '.system sh']], "(.system)" },
  { "sqlite3 x.db <<'EOF'\n.tables\n.shell sh\nEOF", "(.shell)" },
  -- migration tools' tasks that drop or empty the schema
  { [[flyway -url=jdbc:postgresql://db/app clean]], "flyway clean" },
  { [[liquibase --changelog-file=db.xml dropAll]], "liquibase dropAll" },
  { [[npx sequelize-cli db:drop]], "sequelize-cli db:drop" },
  { [[npx typeorm schema:drop -d src/data-source.ts]], "typeorm schema:drop" },
  { [[php artisan migrate:fresh --seed]], "artisan migrate:fresh" },
  { [[php artisan db:wipe --force]], "artisan db:wipe" },
  { [[mix ecto.reset]], "mix ecto.reset" },
  { [[alembic -c alembic.ini downgrade base]], "alembic downgrade base" },
  { [[sqlx database reset -y]], "sqlx database reset" },
  { [[diesel database reset]], "diesel database reset" },
  { [[dotnet ef database drop --force]], "ef database drop" },
  { [[npx knex migrate:rollback --all]], "knex migrate:rollback --all" },
  { [[npx prisma db push --accept-data-loss]], "prisma db push --accept-data-loss" },
  { [[django-admin flush --noinput]], "django-admin flush" },
  { [[./manage.py flush]], "manage.py flush" },
  { [[python3 manage.py reset_db --noinput]], "manage.py reset_db" },
  -- other databases' shells, each with the option that carries its statement
  { [[cqlsh -e "DROP KEYSPACE app"]], "DROP KEYSPACE" },
  { [[cqlsh db1 9042 -u cassandra --execute="TRUNCATE app.users"]], "TRUNCATE" },
  { [[clickhouse-client --host ch -q 'DROP TABLE events']], "DROP TABLE" },
  { [[clickhouse client --query="TRUNCATE TABLE events"]], "TRUNCATE" },
  { [[duckdb analytics.duckdb "DROP TABLE t"]], "DROP TABLE" },
  { [[duckdb -c "DELETE FROM t"]], "DELETE without WHERE" },
  { [[sqlcmd -S db.local -d app -Q "DROP DATABASE app"]], "DROP DATABASE" },
  { [[mycli -u root -e "delete from sessions"]], "DELETE without WHERE" },
  { [[litecli app.db -e "DROP TABLE t"]], "DROP TABLE" },
  { [[usql pg://localhost/app -c "drop schema public cascade"]], "DROP SCHEMA" },
  { [[snowsql -a acct -q "DROP SCHEMA analytics"]], "DROP SCHEMA" },
  { [[bq query --use_legacy_sql=false 'DROP TABLE ds.events']], "DROP TABLE" },
  { [[cockroach sql --insecure --execute "DROP DATABASE app CASCADE"]], "DROP DATABASE" },
  { [[npx wrangler@3.1.0 d1 execute prod --remote --command "DELETE FROM users"]], "DELETE without WHERE" },
  { [[wrangler d1 execute prod --command="DROP TABLE users"]], "DROP TABLE" },
  { [[echo "DROP TABLE users;" | pgcli app]], "DROP TABLE" },
  { [[influx delete --bucket metrics --start 1970-01-01T00:00:00Z --stop 2030-01-01T00:00:00Z]], "influx delete" },
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
  -- SQL typed as a command that is scoped, and programs that share a verb's name
  [[DELETE FROM users WHERE id = 7;]],
  [[UPDATE users SET name = 'x' WHERE id = 7]],
  [[GRANT SELECT ON *.* TO 'readonly'@'%';]],
  [[GRANT ALL ON shop.* TO 'shop'@'localhost';]],
  [[truncate -s 0 logs/app.log]],
  [[truncate --size=1M disk.img]],
  [[update-alternatives --list java]],
  [[delete --help]],
  [[sqlite3 dev.db '.schema users']],
  [[sqlite3 dev.db '.output report.csv' 'select * from t']],
  [[psql -c '\dt']],
  [[flyway migrate]], [[flyway info]], [[liquibase update]], [[npx sequelize-cli db:migrate]],
  [[php artisan migrate]], [[mix ecto.migrate]], [[alembic upgrade head]], [[alembic downgrade -1]],
  [[sqlx migrate run]], [[diesel migration run]], [[dotnet ef database update]], [[npx knex migrate:rollback]],
  [[mix test]], [[git log --format=%H ef]],
  [[npx prisma@5.22.0 db push]], [[django-admin startproject site]], [[./manage.py migrate]],
  [[cqlsh -e "SELECT * FROM app.users LIMIT 5"]], [[clickhouse client --query "SELECT count() FROM events"]],
  [[clickhouse-client -q "SHOW TABLES"]], [[duckdb -c "SELECT 42"]], [[duckdb data.duckdb "SELECT * FROM t"]],
  [[sqlcmd -S db.local -Q "SELECT @@VERSION"]], [[bq query 'SELECT 1']], [[bq ls]],
  [[cockroach sql --insecure -e "SHOW TABLES"]], [[cockroach start-single-node --insecure]],
  [[wrangler d1 execute prod --command "SELECT * FROM users LIMIT 5"]], [[wrangler deploy --dry-run]],
  [[influx bucket list]], [[influx query 'from(bucket:"m") |> range(start: -1h)']],
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
