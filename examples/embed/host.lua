---@meta host.embed
--- What the embed host knows that a payload does not carry.
---@class host.embed
---@field budget_remaining fun(): integer Tool calls left to this session.
---@field user host.embed.user The user at the keyboard.
local M = {}

---@class host.embed.user
---@field Name string
---@field name string
---@field Role string
---@field role string
---@field Maintainer fun(self: host.embed.user): boolean
---@field maintainer fun(self: host.embed.user): boolean
return M
