-- Reminds the model of the house rules at session start, and after every edit
-- reminds it to run the tests before it stops.

hook.register("SessionStart", nil, function(input)
  return hook.context(table.concat({
    "House rules for this repository:",
    "- commit messages follow Conventional Commits (feat:, fix:, docs:, ...);",
    "- run the tests before you say a change is done;",
    "- never edit files under vendor/.",
  }, "\n"))
end, { name = "house-rules" })

hook.register("PostToolUse", "@fs.write", function(input)
  if input.toolResult and not input.toolResult.isError then
    local args = type(input.toolInput) == "table" and input.toolInput or {}
    local path = args.path or args.file_path or "the file"
    return hook.context("Edited " .. path .. ". Run the tests before you finish.")
  end
end, { name = "edit-reminder" })
