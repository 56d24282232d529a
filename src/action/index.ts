import { run } from "./main.js";

// The entry the runner starts (bundled as dist/index.js).
await run();
