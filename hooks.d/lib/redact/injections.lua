-- redact.injections: the kinds of instruction addressed to the assistant
-- that lib/redact.lua fences in fetched and MCP content, each with the
-- needles (lower-case) it is looked for around and an RE2 pattern over
-- the lower-cased text (nil: the needle is the phrase). A module of its
-- own: its expressions hold more brackets than a file Compile takes
-- without a second scan.

return {
  { what = "an order to ignore its instructions",
    needles = { "ignore", "disregard", "forget", "override", "bypass" },
    pattern = [[\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|every)\s+(?:of\s+)?(?:the\s+|your\s+|my\s+)?(?:[a-z]+\s+)?|(?:your|my)\s+(?:[a-z]+\s+)?|(?:the\s+)?(?:previous|prior|above|earlier|preceding|foregoing|original|initial|system|safety|developer)\s+)(?:instructions?|prompts?|directives?|guidelines|rules|guardrails|restrictions)\b]] },
  { what = "a new role for the assistant",
    needles = { "you are now", "from now on", "pretend" },
    pattern = [[\byou\s+are\s+now\s+(?:an?\s+|in\s+|the\s+)?(?:[a-z]+\s+){0,2}?(?:assistant|ai|model|agent|bot|persona|character|mode|dan|jailbroken|unrestricted|unfiltered)\b|\bfrom\s+now\s+on,?\s+(?:you\s+(?:are|will\s+act|must\s+act|will\s+respond|must\s+respond|will\s+only|must\s+only|must\s+always|will\s+always)|act\s+as|respond\s+as)\b|\bpretend\s+(?:that\s+)?you\s+(?:are|have\s+no)\b]] },
  { what = "a request for its system prompt",
    needles = { "system prompt", "system message", "instructions", "prompt" },
    pattern = [[\b(?:reveal|print|show|repeat|output|disclose|leak|display|dump|recite)\s+(?:me\s+)?(?:your\s+(?:full\s+|entire\s+|original\s+|hidden\s+|initial\s+|exact\s+)?(?:system\s+prompt|system\s+message|instructions|prompt)|the\s+(?:full\s+|hidden\s+|exact\s+)?system\s+(?:prompt|message))\b|\b(?:new|updated|real|actual)\s+system\s+(?:prompt|instructions?|message)\s*:]] },
  { what = "a fake conversation marker",
    needles = { "<system>", "</system>", "<|im_start|>", "<|im_end|>", "<|system|>", "<|assistant|>", "<|user|>",
      "[inst]", "[/inst]", "<<sys>>", "<|endoftext|>", "<|eot_id|>", "<|start_header_id|>", "</user>",
      "</assistant>", "<assistant>", "</function_results>", "\n\nhuman:", "\n\nassistant:", "\\n\\nhuman:",
      "\\n\\nassistant:" } },
  { what = "an order to keep something from the user",
    needles = { "user" },
    pattern = [[\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention|reveal|show|notify|alert|let)\s+(?:this\s+|it\s+|anything\s+)?(?:to\s+)?(?:the\s+)?user\b|\bwithout\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+)?user\b|\b(?:keep|hide)\s+(?:this|it)\s+(?:secret\s+|hidden\s+)?from\s+the\s+user\b]] },
  { what = "a note addressed to AI agents",
    needles = { "important", "attention", "urgent", "note", "notice", "warning", "if you are", "dear", "hey",
      "reading this", "instructed" },
    pattern = [[\b(?:important|attention|urgent|note|notice|warning)\s*[:!]+\s*(?:to\s+)?(?:all\s+|any\s+)?(?:ai|llms?|language\s+models?|assistants?|claude|chatgpt|gpt|copilot|gemini|codex)(?:\s+(?:agents?|assistants?|models?))?\s*(?:[:,]|must\b|should\b|shall\b|need\s+to\b|are\s+(?:instructed|required)\b|reading\s+this\b)|\bif\s+you\s+are\s+(?:an?\s+)?(?:ai\s+assistant|ai\s+agent|ai\s+model|coding\s+agent|large\s+language\s+model|language\s+model|ai|llm|assistant|chatbot)\b|\b(?:dear|hey|hello|attention)\s+(?:ai|llm|assistant|agent|claude|chatgpt|copilot|gemini)\b|\b(?:ai|llm)s?\s+(?:agents?|assistants?|models?)\s+(?:reading\s+this|are\s+(?:instructed|required)\s+to)\b]] },
  { what = "an ask to send secrets out",
    needles = { "send", "upload", "post", "mail", "forward", "exfiltrate", "transmit", "leak", "paste" },
    pattern = [[\b(?:send|upload|post|e-?mail|forward|exfiltrate|transmit|leak|paste)\s+(?:(?:me|us)\s+)?(?:(?:the\s+)?(?:full\s+|entire\s+)?contents?\s+of\s+(?:the\s+|your\s+|all\s+)?|all\s+(?:of\s+)?(?:the\s+|your\s+)?|every\s+|your\s+|the\s+user'?s\s+)(?:~/\.ssh|\.ssh|ssh\s+keys?|id_rsa|id_ed25519|\.env\b|\.aws|aws\s+credentials|credentials|secrets?|api\s+keys?|tokens?|passwords?|environment\s+variables|env\s+vars|private\s+keys?|keys)|\b(?:send|upload|post|exfiltrate|transmit)\s+(?:the\s+)?(?:~/\.ssh|\.ssh/|id_rsa|\.env\b|\.aws/credentials|environment\s+variables|private\s+keys?)]] },
}
