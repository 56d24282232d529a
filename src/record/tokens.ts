import { z } from "zod";

/** Tokens the model used, as the checkpoint records them (for a node, or a subgraph's integration tests). */
export const TokensSchema = z.object({ prompt: z.int().min(0), completion: z.int().min(0), total: z.int().min(0) });
export type Tokens = z.infer<typeof TokensSchema>;
