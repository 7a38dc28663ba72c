-- databases: blocks DROP, TRUNCATE and DELETE/UPDATE without WHERE through database clients and MCP database tools
--
-- What it stops: SQL that destroys a table's contents or the table, sent
-- through psql, mysql/mariadb, sqlite3 (as -c/-e/--command/--execute,
-- sqlite3's statement operands, a here-document, a here-string or text
-- piped in from echo/printf), the other databases' shells (cqlsh -e,
-- clickhouse-client/clickhouse client -q, duckdb, sqlcmd -Q, mycli,
-- litecli, usql, snowsql -q, pgcli, bq query, cockroach sql -e, wrangler
-- d1 execute --command), or through an MCP tool of a database server
-- (a "sql"/"query"/"statement" argument): DROP, TRUNCATE, ALTER ... DROP,
-- DELETE and UPDATE without a WHERE (or with one that is always true:
-- WHERE 1=1, WHERE true, ... OR 1=1), and GRANT ALL ON *.* (every
-- privilege on every database), and the clients' shell escapes (\!,
-- sqlite3's .shell and .system: the command they run is read by no
-- guard). Also redis-cli FLUSHALL/FLUSHDB,
-- mongosh/mongo --eval of dropDatabase()/drop()/deleteMany({}), dropdb,
-- mysqladmin drop, and the frameworks' reset tasks (rails/rake db:drop,
-- db:reset, prisma migrate reset and db push --accept-data-loss, manage.py
-- or django-admin flush and reset_db, influx delete, flyway clean, liquibase
-- dropAll, sequelize db:drop, typeorm schema:drop, php artisan
-- migrate:fresh/reset/refresh and db:wipe, mix ecto.drop/ecto.reset,
-- alembic downgrade base, sqlx and diesel database drop/reset, dotnet ef
-- database drop, knex migrate:rollback --all). Clients reached through
-- wrappers, sh -c, $(…) (lib/shell.lua) or `docker exec`/`kubectl exec`
-- (a client's name among another command's words) are judged the same.
-- SQL typed as a command line (DROP TABLE users; delete from users, as
-- pasted into a shell tool, or run by a tool that takes SQL as its
-- command) is read as SQL too; the coreutils truncate (an option first) is
-- not.
--
-- Why: an agent that "cleans up test data" or "resets the schema" against
-- the wrong connection loses data no git checkout brings back.
--
-- Set them in the config's [packs.databases] table, over the defaults below.
-- Settings (SETTINGS below):
--   mcp_servers   Lua patterns: an MCP tool whose lower-cased name matches
--                 one is a database tool
--   mcp_sql_keys  the tool-input keys that hold SQL or a command
--   deny          which rules apply (drop, truncate, delete_without_where,
--                 update_without_where, flush, frameworks, grant_all)
--
-- What it cannot know: SQL in files (psql -f, mysql < dump.sql, cat x.sql |
-- psql) is not read — hooks have no file access — and is let through; SQL
-- held in a variable or command output on the line ("$SQL") is denied, as
-- it cannot be read. Which database a connection points at is not known: a
-- DROP on a throwaway local database is denied too (run it yourself).
-- Stored procedures, triggers and rules that delete are not followed.
-- Fails closed: a command line or SQL text that cannot be read is denied.

local SETTINGS = hook.settings("databases", {
  mcp_servers = { "postgres", "pg", "mysql", "maria", "sqlite", "supabase", "neon", "database", "sql", "_db",
    "db_", "redis", "mongo", "bigquery", "snowflake", "clickhouse", "planetscale", "turso", "cockroach" },
  mcp_sql_keys = { "sql", "query", "statement", "sql_query", "command", "script" },
  deny = { drop = true, truncate = true, delete_without_where = true, update_without_where = true, flush = true,
    frameworks = true, grant_all = true },
})

local shell = require("shell")
local shell_args = require("shell.args")
local sql = require("sql")

local ipairs, pairs, type = ipairs, pairs, type

-- Clients and the way each takes SQL: short and long options whose value is
-- SQL, other options that take a value, and whether operands after the
-- first (the database) are SQL (sqlite3).
local CLIENTS = {
  psql = { dialect = "postgres", sql_short = "c", sql_long = { "command" }, short_arg = "dfhpUvoLPTFRW",
    long_arg = { "dbname", "file", "host", "port", "username", "set", "variable", "output", "log-file", "pset",
      "table-attr", "field-separator", "record-separator" } },
  mysql = { dialect = "mysql", sql_short = "e", sql_long = { "execute", "init-command" }, short_arg = "DhPpuSo",
    long_arg = { "database", "host", "port", "user", "socket", "password", "defaults-file" } },
  sqlite3 = { dialect = "sqlite", sql_long = { "cmd" }, long_arg = { "init", "separator", "nullvalue", "newline",
    "cmd", "maxsize", "mmap", "pagecache", "lookaside", "heap", "vfs", "zip" }, operands_are_sql = true,
    single_dash_long = true },
}
for _, spec in pairs(CLIENTS) do
  spec.longs = {}
  for _, n in ipairs(spec.long_arg or {}) do spec.longs[#spec.longs + 1] = n end
  for _, n in ipairs(spec.sql_long or {}) do spec.longs[#spec.longs + 1] = n end
end
CLIENTS.mariadb = CLIENTS.mysql
CLIENTS.sqlite = CLIENTS.sqlite3
-- Other databases' shells that run the statement they are given, each read
-- the same way (cqlsh -e, clickhouse-client -q, duckdb DB 'SQL', sqlcmd -Q).
local function client(dialect, sql_short, sql_long, short_arg, long_arg, extra)
  local spec = { dialect = dialect, sql_short = sql_short, sql_long = sql_long, short_arg = short_arg,
    long_arg = long_arg, longs = {} }
  for k, v in pairs(extra or {}) do spec[k] = v end
  for _, n in ipairs(long_arg or {}) do spec.longs[#spec.longs + 1] = n end
  for _, n in ipairs(sql_long or {}) do spec.longs[#spec.longs + 1] = n end
  return spec
end
CLIENTS.cqlsh = client(nil, "e", { "execute" }, "ukpf", { "username", "keyspace", "password", "file", "cqlversion",
  "connect-timeout", "request-timeout", "encoding", "cqlshrc", "protocol-version" })
CLIENTS["clickhouse-client"] = client(nil, "q", { "query", "queries-file" }, "hudf", { "host", "port", "user",
  "password", "database", "format", "config-file", "param" })
CLIENTS.duckdb = client("sqlite", "cs", { "cmd" }, nil, { "init", "cmd" }, { operands_are_sql = true,
  single_dash_long = true })
CLIENTS.sqlcmd = client(nil, "Qq", nil, "SUPdiohsawlteEcLHWxyYKNMfrv", nil)
CLIENTS.mycli = client("mysql", "e", { "execute" }, "hPuSpDR", { "host", "port", "user", "socket", "password",
  "database", "prompt", "logfile", "defaults-group-suffix", "myclirc", "login-path", "ssl-ca", "init-command" })
CLIENTS.litecli = client("sqlite", "e", { "execute" }, "D", { "database", "liteclirc", "prompt", "logfile" })
CLIENTS.usql = client(nil, "c", { "command" }, "fJoPvWUw", { "file", "output", "set", "variable", "pset", "config" })
CLIENTS.snowsql = client(nil, "q", { "query" }, "audswrfco", { "accountname", "username", "dbname", "schemaname",
  "warehouse", "rolename", "filename", "config", "option", "variable", "connection", "authenticator" })
CLIENTS.pgcli = client("postgres", nil, nil, "hpUdD", { "host", "port", "username", "dbname", "prompt",
  "pgclirc", "application-name" })
-- MIGRATORS are the migration tools whose tasks drop or empty a schema,
-- by the operand words (lower-cased) that name the task: one word, or two
-- in a row.
local MIGRATORS = {
  flyway = { clean = true },
  liquibase = { dropall = true, ["drop-all"] = true },
  sequelize = { ["db:drop"] = true, ["db:migrate:undo:all"] = true },
  typeorm = { ["schema:drop"] = true },
  artisan = { ["migrate:fresh"] = true, ["migrate:reset"] = true, ["migrate:refresh"] = true, ["db:wipe"] = true },
  mix = { ["ecto.drop"] = true, ["ecto.reset"] = true },
  alembic = { ["downgrade base"] = true },
  sqlx = { ["database drop"] = true, ["database reset"] = true, ["db drop"] = true, ["db reset"] = true },
  diesel = { ["database reset"] = true, ["database drop"] = true },
  ef = { ["database drop"] = true },
  knex = { ["migrate:rollback --all"] = true },
}
MIGRATORS["sequelize-cli"] = MIGRATORS.sequelize
MIGRATORS["typeorm-ts-node-commonjs"] = MIGRATORS.typeorm
MIGRATORS["typeorm-ts-node-esm"] = MIGRATORS.typeorm

-- migrator_task returns the task of a migration tool's words that drops or
-- empties the schema (flyway clean, php artisan migrate:fresh, alembic
-- downgrade base), or nil.
local function migrator_task(name, args)
  local tasks = MIGRATORS[name]
  local prev
  for _, w in ipairs(args) do
    local t = w.text:lower()
    if tasks[t] then return name .. " " .. w.text end
    if prev and tasks[prev .. " " .. t] then return name .. " " .. prev .. " " .. t end
    if t:sub(1, 1) ~= "-" or t == "--all" then prev = t end
  end
  return nil
end

local OTHER_CLIENTS = { ["redis-cli"] = true, mongosh = true, mongo = true, dropdb = true, mysqladmin = true,
  rails = true, rake = true, prisma = true, clickhouse = true, cockroach = true, bq = true, wrangler = true,
  influx = true, ["django-admin"] = true }

-- SUBCOMMAND_CLIENTS are tools whose subcommand runs the SQL it is given:
-- the words that name it, and how the rest is read (clickhouse client -q,
-- cockroach sql -e, wrangler d1 execute DB --command, bq query 'SQL').
local SUBCOMMAND_CLIENTS = {
  clickhouse = { { "client" }, CLIENTS["clickhouse-client"] },
  cockroach = { { "sql" }, client(nil, "e", { "execute" }, "d", { "url", "database", "user", "host", "port",
    "certs-dir", "format", "set", "file" }) },
  wrangler = { { "d1", "execute" }, client("sqlite", nil, { "command" }, "c", { "file", "config", "env",
    "persist-to" }) },
  bq = { { "query" }, client(nil, nil, nil, nil, { "project_id", "dataset_id", "location", "destination_table",
    "parameter", "format", "max_rows" }, { operands_are_sql = true, all_operands = true }) },
}

local function deny(why)
  if why:find("^a shell command run") then
    return hook.deny("database guard: " .. why .. ". Run the command as its own shell command, where it " ..
      "is checked, not from inside the database client.")
  end
  if why:find("^GRANT") then
    return hook.deny("database guard: " .. why .. ". Granting every privilege needs a person: grant the " ..
      "privileges the account needs on the database it uses (GRANT SELECT, INSERT ON app.*), or ask the user.")
  end
  return hook.deny("database guard: " .. why .. ". Destroying data needs a person: show the user the " ..
    "exact statement and ask them to run it, or scope it with a WHERE that selects the rows you mean.")
end

-- Judging SQL ---------------------------------------------------------------

local STARTERS = { ["("] = true, [")"] = true, explain = true, analyze = true, verbose = true, as = true }
local CLAUSE_END = { ["and"] = true, ["or"] = true, returning = true, limit = true, order = true, group = true }

-- always_true reports whether the WHERE condition starting at token k of
-- st has a disjunct that is always true (true, 1, 1=1, 'a'='a', x=x).
local function always_true(st, k, depth)
  local T, K, D, n = st.t, st.kind, st.depth, st.n
  local function ends(j) return D[j] == depth and K[j] == "word" and CLAUSE_END[T[j]] end
  local start = k
  while start <= n do
    local stop = start
    while stop <= n and not ends(stop) do stop = stop + 1 end
    local len = stop - start
    local a, c = start, start + 2
    if len == 1 and ((K[a] == "word" and T[a] == "true") or (K[a] == "num" and tonumber(T[a]) ~= 0)) then
      return true
    end
    if len == 3 and T[a + 1] == "=" and K[a + 1] == "op" and K[a] == K[c] and T[a] == T[c] and T[a] ~= "null" then
      return true
    end
    -- only the disjuncts count: skip what an AND joins
    while stop <= n and T[stop] == "and" and D[stop] == depth do
      stop = stop + 1
      while stop <= n and not ends(stop) do stop = stop + 1 end
    end
    if stop > n or T[stop] ~= "or" then return false end
    start = stop + 1
  end
  return false
end

-- statement_problem returns why one statement destroys data, or nil.
local function statement_problem(st)
  local T, K, D, n = st.t, st.kind, st.depth, st.n
  local first = K[1] == "word" and T[1] or ""
  if first == "drop" and SETTINGS.deny.drop then
    return "DROP " .. string.upper(K[2] == "word" and T[2] or "")
  end
  if first == "truncate" and SETTINGS.deny.truncate then return "TRUNCATE" end
  if first == "grant" and T[2] == "all" and SETTINGS.deny.grant_all then
    for k = 3, n - 1 do
      if K[k] == "word" and T[k] == "on" and T[k + 1] == "*" then
        return "GRANT ALL ON *.* (every privilege on every database)"
      end
    end
  end
  if first == "alter" and SETTINGS.deny.drop then
    for k = 2, n do
      if K[k] == "word" and T[k] == "drop" and D[k] == 0 then return "ALTER ... DROP" end
    end
  end
  for k = 1, n do
    local verb = K[k] == "word" and (T[k] == "delete" or T[k] == "update") and T[k]
    if verb and (k == 1 or (STARTERS[T[k - 1]] and (K[k - 1] == "word" or K[k - 1] == "op"))) then
      local rule = verb == "delete" and "delete_without_where" or "update_without_where"
      if SETTINGS.deny[rule] then
        local where
        for j = k + 1, n do
          if D[j] < D[k] then break end
          if D[j] == D[k] and K[j] == "word" and T[j] == "where" then where = j; break end
        end
        if not where then return string.upper(verb) .. " without WHERE" end
        if always_true(st, where + 1, D[k]) then return string.upper(verb) .. " with a WHERE that is always true" end
      end
    end
  end
  return nil
end

-- sql_problem returns why the SQL text destroys data, or nil; dialect nil
-- reads it in every dialect.
local function sql_problem(text, dialect)
  local dialects = dialect and { dialect } or sql.DIALECTS
  for _, d in ipairs(dialects) do
    local stmts, err = sql.split(text, d)
    for _, st in ipairs(stmts) do
      local why = statement_problem(st)
      if why then return why end
    end
    if err then return "the SQL could not be read (" .. err .. ")" end
  end
  return nil
end

local REDIS_FLUSH = { flushall = true, flushdb = true }

-- redis_problem judges a redis command given as words or as text.
local function redis_text_problem(text)
  for line in text:gmatch("[^\n]+") do
    local w = line:match("^%s*(%S+)")
    if w and REDIS_FLUSH[w:lower()] then return "redis " .. w:upper() end
  end
  return nil
end

local function mongo_problem(text)
  local l = text:lower()
  if l:find("dropdatabase", 1, true) then return "dropDatabase()" end
  if l:find("%.drop%s*%(") then return "drop() of a collection" end
  if l:find("deletemany%s*%(%s*{%s*}") or l:find("remove%s*%(%s*{%s*}") then return "deleting every document" end
  return nil
end

-- Reading a client's command line ---------------------------------------------

local function contains(list, v)
  for _, x in ipairs(list or {}) do
    if x == v then return true end
  end
  return false
end

-- client_args reads a client's words: the SQL option values (words) and the
-- operands. unknown is set when a word that could be an option is unknown.
local function client_args(args, spec)
  local sqls, operands, unknown = {}, {}, false
  local k = 1
  while args[k] do
    local w = args[k]
    local t = w.text
    if w.unknown and (t:sub(1, 1) == "-" or t:sub(1, 1) == "\0") then
      unknown = true
    elseif t == "--" then
      for j = k + 1, #args do operands[#operands + 1] = args[j] end
      break
    elseif t:sub(1, 2) == "--" or (spec.single_dash_long and t:find("^%-%a%a")) then
      local name, eq, val = t:match("^%-%-?([^=]*)(=?)(.*)$")
      local hits = shell_args.long(name, spec.longs)
      local is_sql = false
      for _, h in ipairs(hits) do
        if contains(spec.sql_long, h) then is_sql = true end
      end
      local takes = #hits > 0
      if takes and eq == "" then
        k = k + 1
        val = args[k]
      elseif takes then
        val = { text = val, unknown = w.unknown }
      end
      if is_sql and val then sqls[#sqls + 1] = val end
    elseif t:sub(1, 1) == "-" and #t > 1 then
      for j = 2, #t do
        local c = t:sub(j, j)
        local is_sql = spec.sql_short and spec.sql_short:find(c, 1, true)
        if is_sql or (spec.short_arg and spec.short_arg:find(c, 1, true)) then
          local val
          if j < #t then
            val = { text = t:sub(j + 1), unknown = w.unknown }
          else
            k = k + 1
            val = args[k]
          end
          if is_sql and val then sqls[#sqls + 1] = val end
          break
        end
      end
    else
      operands[#operands + 1] = w
    end
    k = k + 1
  end
  return sqls, operands, unknown
end

-- stdin_texts returns what a command reads on stdin when the line shows it:
-- here-documents, here-strings, and echo/printf piped in. unread is set
-- when it is piped from a command whose output is not known (a file).
local function stdin_texts(c)
  local out = {}
  for _, r in ipairs(c.redirs) do
    if r.op == "<<" or r.op == "<<-" or r.op == "<<<" then out[#out + 1] = r.target end
  end
  if c.upstream then
    local v = shell.output(c.upstream)
    if v then out[#out + 1] = { text = v } end
  end
  return out
end

-- shell_escape returns the client meta-command in text that runs a shell
-- command (psql's and mysql's \!, sqlite3's .shell and .system), or nil:
-- the command it runs is out of every guard's reading.
local function shell_escape(text)
  if text:find("\\!") then return "\\!" end
  for line in text:gmatch("[^\n]+") do
    local m = line:match("^%s*%.(%a+)")
    if m == "shell" or m == "system" then return "." .. m end
  end
  return nil
end

local function word_sql_problem(w, dialect)
  if w.unknown then return "SQL that is only known when the command runs (" .. shell.printable(w.text, 40) .. ")" end
  local esc = shell_escape(w.text)
  if esc then return "a shell command run from the database client (" .. esc .. "), which no guard reads" end
  return sql_problem(w.text, dialect)
end

-- client_problem judges one database client run with args, reading stdin
-- from c.
local function client_problem(name, args, c)
  local spec = CLIENTS[name]
  local sub = SUBCOMMAND_CLIENTS[name]
  if sub then
    -- the subcommand's words, in order, before its own options
    local k, want, at = 1, sub[1], nil
    for j, w in ipairs(args) do
      if w.text == want[k] then
        k = k + 1
        if k > #want then at = j; break end
      elseif not w.text:find("^%-") then
        break
      end
    end
    if at then
      local rest = {}
      for j = at + 1, #args do rest[#rest + 1] = args[j] end
      spec, args = sub[2], rest
    end
  end
  if spec then
    local sqls, operands, unknown = client_args(args, spec)
    if spec.operands_are_sql then
      for k = spec.all_operands and 1 or 2, #operands do sqls[#sqls + 1] = operands[k] end
    end
    for _, w in ipairs(sqls) do
      local why = word_sql_problem(w, spec.dialect)
      if why then return why end
    end
    for _, w in ipairs(stdin_texts(c)) do
      local why = word_sql_problem(w, spec.dialect)
      if why then return why end
    end
    if unknown then return "options that are only known when the command runs" end
    return nil
  end
  if name == "redis-cli" and SETTINGS.deny.flush then
    for _, w in ipairs(args) do
      if REDIS_FLUSH[w.text:lower()] then return "redis " .. w.text:upper() end
    end
    for _, w in ipairs(stdin_texts(c)) do
      local why = redis_text_problem(w.text)
      if why then return why end
    end
  elseif (name == "mongosh" or name == "mongo") and SETTINGS.deny.drop then
    for _, w in ipairs(args) do
      local why = mongo_problem(w.text)
      if why then return why end
    end
    for _, w in ipairs(stdin_texts(c)) do
      local why = mongo_problem(w.text)
      if why then return why end
    end
  elseif name == "dropdb" and SETTINGS.deny.drop then
    return "dropdb"
  elseif name == "mysqladmin" and SETTINGS.deny.drop then
    for _, w in ipairs(args) do
      if w.text:lower() == "drop" then return "mysqladmin drop" end
    end
  elseif SETTINGS.deny.frameworks and (name == "rails" or name == "rake") then
    for _, w in ipairs(args) do
      local t = w.text:lower()
      if t == "db:drop" or t == "db:reset" or t == "db:schema:load" or t:find("^db:drop:") then
        return name .. " " .. t
      end
    end
  elseif SETTINGS.deny.frameworks and MIGRATORS[name] then
    return migrator_task(name, args)
  elseif SETTINGS.deny.frameworks and name == "prisma" then
    local joined = {}
    for _, w in ipairs(args) do joined[#joined + 1] = w.text end
    local s = " " .. table.concat(joined, " ") .. " "
    if s:find(" migrate reset ", 1, true) or (s:find(" db push ", 1, true) and s:find(" %-%-force%-reset ")) then
      return "prisma reset"
    end
    if s:find(" db push ", 1, true) and s:find(" %-%-accept%-data%-loss[ =]") then
      return "prisma db push --accept-data-loss"
    end
  elseif SETTINGS.deny.frameworks and name == "django-admin" then
    for _, w in ipairs(args) do
      local t = w.text:lower()
      if t == "flush" or t == "reset_db" then return "django-admin " .. t end
    end
  elseif SETTINGS.deny.drop and name == "influx" then
    -- influx delete removes points; influx bucket delete, the bucket
    local first, second
    for _, w in ipairs(args) do
      if not w.text:find("^%-") then
        if not first then first = w.text elseif not second then second = w.text; break end
      end
    end
    if first == "delete" then return "influx delete (points of a bucket)" end
    if (first == "bucket" or first == "org" or first == "v1") and second == "delete" then
      return "influx " .. first .. " delete"
    end
  end
  return nil
end

-- SQL_COMMANDS are the SQL verbs read when a statement is typed as a
-- command line (pasted into a shell tool, or sent to a tool that runs SQL
-- given as its command), each with the word that must follow somewhere for
-- the line to be SQL rather than a program of that name.
local SQL_COMMANDS = { drop = "any", truncate = "any", delete = "from", update = "set", alter = "any",
  grant = "on" }

-- typed_sql returns why a command that is an SQL statement typed as a
-- command line (DROP TABLE users; delete from users) destroys data, or
-- nil. The coreutils truncate (an option first) is not SQL.
local function typed_sql(c)
  local want = SQL_COMMANDS[c.name]
  local a = c.args
  if not want or not a[1] or a[1].text:find("^%-") then return nil end
  local words = { c.name }
  local found = want == "any"
  for k, w in ipairs(a) do
    if k > 64 then break end
    words[#words + 1] = w.unknown and "?" or w.text
    if w.text:lower() == want then found = true end
  end
  if not found then return nil end
  local why = sql_problem(table.concat(words, " "))
  return why and why .. " (SQL typed as a command)"
end

-- command_problem judges one simple command: a client itself, or a client
-- named among its words (docker exec db psql ..., kubectl exec -- psql ...).
local function command_problem(c)
  local name = c.name
  if name and SQL_COMMANDS[name] then
    local why = typed_sql(c)
    if why then return why end
  end
  if name and (CLIENTS[name] or OTHER_CLIENTS[name] or MIGRATORS[name]) then
    local why = client_problem(name, c.args, c)
    if why then return why end
  end
  if name == "manage.py" and c.args[1] and (c.args[1].text == "flush" or c.args[1].text == "reset_db")
    and SETTINGS.deny.frameworks then
    return "manage.py " .. c.args[1].text
  end
  if name == "python" or (name and name:find("^python%d")) then
    local a = c.args
    for k = 1, #a - 1 do
      if shell.basename(a[k].text) == "manage.py" and (a[k + 1].text == "flush" or a[k + 1].text == "reset_db")
        and SETTINGS.deny.frameworks then
        return "manage.py " .. a[k + 1].text
      end
    end
  end
  for k, w in ipairs(c.args) do
    local b = (not w.unknown) and shell.basename(w.text):lower()
    if b and b:find("^[%w%-]+@[%w.%-]+$") then b = b:match("^[^@]+") end -- npx wrangler@3.1.0
    if b and (CLIENTS[b] or OTHER_CLIENTS[b] or MIGRATORS[b]) then
      local rest = {}
      for j = k + 1, #c.args do rest[#rest + 1] = c.args[j] end
      local why = client_problem(b, rest, c)
      if why then return why end
    end
  end
  return nil
end

-- A plain line (shell.quick) that names no client, no framework task
-- runner and no manage.py anywhere (command_problem also reads a client
-- named among another command's words), and whose program is no SQL verb,
-- is allowed without parsing it.
local QUICK_WORDS = {}
for _, set in ipairs({ CLIENTS, OTHER_CLIENTS }) do
  for name in pairs(set) do QUICK_WORDS[#QUICK_WORDS + 1] = re.quote(name) end
end
table.sort(QUICK_WORDS)
-- the migration tools' names are short words (ef, mix): a whole word each
local MIGRATOR_WORDS = {}
for name in pairs(MIGRATORS) do MIGRATOR_WORDS[#MIGRATOR_WORDS + 1] = re.quote(name) end
table.sort(MIGRATOR_WORDS)
QUICK_WORDS[#QUICK_WORDS + 1] = "(?:^|[ /])(?:" .. table.concat(MIGRATOR_WORDS, "|") .. ")(?: |$)"
local SQL_PROGRAMS = {}
for v in pairs(SQL_COMMANDS) do SQL_PROGRAMS[#SQL_PROGRAMS + 1] = v end
table.sort(SQL_PROGRAMS)
local quick = shell.quick({ programs = { SQL_PROGRAMS },
  words = "(?i:" .. table.concat(QUICK_WORDS, "|") .. "|rails|rake|prisma|manage\\.py)" })

hook.register("PreToolUse", "@shell", function(input)
  local args = input.toolInput
  local cmd = type(args) == "table" and args.command
  if type(cmd) ~= "string" or quick(cmd) then return nil end
  local cmds, err = shell.parse(cmd)
  for _, c in ipairs(cmds) do
    local why = command_problem(c)
    if why then return deny(why) end
  end
  if err then return deny("the command could not be checked: " .. err) end
end, { name = "databases-shell", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })

-- The patterns of SETTINGS.mcp_servers made of letters, digits and "_"
-- alone are plain text: they are matched all at once, by one regexp
-- (MCP_PLAIN) built when the pack loads, so that an MCP call of another
-- server costs one Go call; the others (MCP_PATTERNS) are Lua patterns,
-- tried one by one.
local MCP_PLAIN, MCP_PATTERNS = nil, {}
do
  local plain = {}
  for _, p in ipairs(SETTINGS.mcp_servers) do
    if p:find("^[a-zA-Z0-9_]+$") then plain[#plain + 1] = p
    else MCP_PATTERNS[#MCP_PATTERNS + 1] = p end
  end
  if #plain > 0 then MCP_PLAIN = table.concat(plain, "|") end
end
local re_match = re.match

-- database_tool reports whether an MCP tool, by its lower-cased name,
-- belongs to a database server.
local function database_tool(lname)
  if MCP_PLAIN and re_match(MCP_PLAIN, lname) then return true end
  for i = 1, #MCP_PATTERNS do
    if lname:find(MCP_PATTERNS[i]) then return true end
  end
  return false
end

hook.register("PreToolUse", "@mcp", function(input)
  local lname = (input.toolName or ""):lower()
  if not database_tool(lname) then return nil end
  if SETTINGS.deny.flush and (lname:find("flushall") or lname:find("flushdb")) then return deny("redis FLUSH") end
  local args = input.toolInput
  if type(args) ~= "table" then return nil end
  for _, key in ipairs(SETTINGS.mcp_sql_keys) do
    local v = args[key]
    if type(v) == "string" then
      local why = sql_problem(v) or (SETTINGS.deny.flush and redis_text_problem(v)) or mongo_problem(v)
      if why then return deny(why) end
    elseif v ~= nil and type(v) ~= "table" then
      -- numbers and booleans hold no SQL
    elseif type(v) == "table" then
      return deny("the tool's " .. key .. " is not text and cannot be checked")
    end
  end
end, { name = "databases-mcp", stage = "validate", timeout_ms = 1000, failure_policy = "closed", policy = true })
