-- Refuses to write one very large file in a single tool call: a model that
-- pastes a data set, a lock file or a minified bundle into the repository is
-- more likely making a mistake than doing what the user wants.
local MAX_BYTES = 256 * 1024

hook.register("PreToolUse", "write|edit", function(input)
  local ti = input.toolInput
  local content = ti.content or ti.new_string or ti.new_str
  if type(content) ~= "string" or #content <= MAX_BYTES then
    return nil
  end
  local path = ti.path or ti.file_path or "the file"
  return hook.deny(string.format(
    "writing %d KiB to %s in one call is over the %d KiB limit: generate large files with a script the user can review, or split the change",
    math.ceil(#content / 1024), path, MAX_BYTES / 1024))
end, {
  name = "max-write-size",
  stage = "validate",
  policy = true,
})
