import { main } from "./main.js";

const io = { out: (t: string) => void process.stdout.write(t), err: (t: string) => void process.stderr.write(t) };
process.exitCode = await main(process.argv.slice(2), io);
