//! The demo session's cast: the subagents the main agent spawns, and the compressed
//! reports they end with.

use super::super::fixtures::Agent;

pub(super) const NAVIGATOR: Agent = Agent {
    id: "a1f3c9e",
    agent_type: "navigator",
    tool_use_id: "toolu_01Nav7QkX2m",
    description: "Map the profile page",
    prompt: "Find where the user profile page is rendered and where users are loaded. \
             Report files and entry points; change nothing.",
    role: "navigator",
};

pub(super) const CODER: Agent = Agent {
    id: "a7d20b4",
    agent_type: "general-purpose",
    tool_use_id: "toolu_01Cod3RvB8p",
    description: "Add avatars",
    prompt: "[ROLE:coder] Add an avatar to the user profile page: User#avatar_url from the \
             email (Gravatar) and an _avatar partial in the show view.",
    role: "coder",
};

pub(super) const TESTER: Agent = Agent {
    id: "ac4e817",
    agent_type: "qa-runner",
    tool_use_id: "toolu_01Qa9TzL4w",
    description: "Test avatars",
    prompt: "Write and run model tests for User#avatar_url.",
    role: "tester",
};

pub(super) const REVIEWER: Agent = Agent {
    id: "a93b5f0",
    agent_type: "reviewer",
    tool_use_id: "toolu_01Rev5HcN1s",
    description: "Review the avatar change",
    prompt: "Review the avatar change against docs/ARCHITECTURE.md.",
    role: "reviewer",
};

pub(super) const NAVIGATOR_REPORT: &str = "[COMPRESSED] agent_type: navigator
Changed files: none
Result: profile = UsersController#show -> app/views/users/show.html.erb; User has email, no avatar column
Decisions: avatars from Gravatar by email, no migration
Blockers: none";

pub(super) const CODER_REPORT: &str = "Done.

[COMPRESSED] agent_type: general-purpose
Changed files: app/models/user.rb, app/views/users/show.html.erb, app/views/users/_avatar.html.erb
Result: User#avatar_url(size) builds the Gravatar URL; show renders the _avatar partial
Decisions: md5 of the downcased email, size 80 by default
Blockers: none";

pub(super) const TESTER_REPORT: &str = "[COMPRESSED] agent_type: qa-runner
Changed files: test/models/user_test.rb
Result: 3 tests for User#avatar_url, all pass (bin/rails test test/models/user_test.rb)
Decisions: none
Blockers: none";

pub(super) const REVIEWER_REPORT: &str = "[COMPRESSED] agent_type: reviewer
Files reviewed: app/models/user.rb, app/views/users/show.html.erb, app/views/users/_avatar.html.erb
Critical: none
Warning: none
Suggestion: add alt text to the avatar image
Verdict: PASS";
