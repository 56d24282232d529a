// Commits in tests need an identity, and must not depend on the machine's ~/.gitconfig.
process.env.GIT_CONFIG_GLOBAL = "/dev/null";
process.env.GIT_CONFIG_NOSYSTEM = "1";
process.env.GIT_AUTHOR_NAME = "rpg-forge tests";
process.env.GIT_AUTHOR_EMAIL = "tests@rpg-forge.invalid";
process.env.GIT_COMMITTER_NAME = "rpg-forge tests";
process.env.GIT_COMMITTER_EMAIL = "tests@rpg-forge.invalid";
