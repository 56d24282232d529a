import { Option, type Command } from "commander";
import { createOpenAiEmbedder, resolveEmbeddingConfig } from "../llm/embeddings.js";
import { renderSearchResult } from "../localize/render.js";
import { RpgSearch, type SearchScope } from "../localize/search.js";
import { terminalLine, terminalText } from "../report/terminal.js";
import { printRunError, type CliIo } from "./output.js";
import { aboutFile, readRpgInput } from "./rpg-input.js";

interface SearchFlags {
  subgraph?: string;
  all?: boolean;
  offline?: boolean;
  embeddingModel?: string;
  json?: boolean;
}

export function addSearchCommand(program: Command, io: CliIo, setExit: (code: number) => void): void {
  program
    .command("search")
    .description("rank an RPG's nodes for a natural-language query by name, signature and docstring; print the top 5")
    .argument("<rpg>", "path to the RPG JSON file")
    .argument("<query>", 'what to look for, e.g. "where is the mean calculated"')
    .option("--subgraph <id>", "search this subgraph only")
    .addOption(new Option("--all", "search every subgraph (the default without --subgraph)").conflicts("subgraph"))
    .option("--offline", "rank by words (BM25) even when a model endpoint is configured")
    .option("--embedding-model <name>", "embedding model (default: RPG_FORGE_EMBEDDING_MODEL or text-embedding-3-small)")
    .option("--json", "print the result as JSON: query, scope, ranking, hits with score and matched words")
    .addHelpText(
      "after",
      "\nRanks by embeddings from OPENAI_BASE_URL / OPENAI_API_KEY when either is set, else offline; an endpoint that\n" +
        "fails is reported on stderr and the ranking falls back to offline. Nothing is written.\n" +
        "Exit codes: 0 searched (also when nothing matched), 2 bad input.",
    )
    .action(async (file: string, query: string, flags: SearchFlags) => {
      try {
        const rpg = await readRpgInput(file, io, setExit);
        if (!rpg) return;
        const config = flags.offline ? undefined : resolveEmbeddingConfig(process.env, { embeddingModel: flags.embeddingModel });
        // No cache file: the CLI writes nothing, and one graph of a few hundred nodes embeds in one request.
        const search = new RpgSearch(rpg, config ? { embedder: createOpenAiEmbedder(config) } : {});
        const scope: SearchScope = flags.subgraph !== undefined ? { subgraph: flags.subgraph } : "all";
        const result = await search.search(query, { scope });
        if (result.fallback) io.err(`warning: ${terminalLine(`embeddings unavailable, ranked offline: ${result.fallback}`)}\n`);
        io.out(flags.json ? `${JSON.stringify(result, null, 2)}\n` : terminalText(renderSearchResult(result)));
      } catch (error) {
        setExit(printRunError(io, aboutFile(error, file)));
      }
    });
}
