// The frame of a server-side driver (serve-load-driver.ts, push-driver.ts): find the measured
// server, let it settle, sample its memory while the clients run, write down what they measured,
// and stop the server. The measured command is the server's whole life, so the driver must stop
// it however the run ends: a client failing, a result that cannot be written, a driver bug.
import fs from 'node:fs';
import { samplePss, serverOn, settle } from './server-tree.js';

export type PssSampler = ReturnType<typeof samplePss>;

/**
 * Runs `measure` against the server listening on `port`, once it has settled, with its tree's Pss
 * sampled meanwhile (`pss.stop()` gives the peak); the result goes to `resultPath` as JSON, or on
 * failure `{ error }` and exit status 1. The sampler is stopped and the server sent SIGTERM in
 * every case, once it was found.
 */
export async function driveServer(port: number, resultPath: string,
  measure: (server: number, pss: PssSampler) => Promise<unknown>): Promise<void> {
  let server = 0;
  let pss: PssSampler | null = null;
  try {
    server = await serverOn(port);
    await settle(server);
    pss = samplePss(server);
    fs.writeFileSync(resultPath, JSON.stringify(await measure(server, pss)));
  } catch (e) {
    process.exitCode = 1;
    const error = String((e as Error).message);
    try {
      fs.writeFileSync(resultPath, JSON.stringify({ error }));
    } catch {
      process.stderr.write(`driver: ${error} (and ${resultPath} could not be written)\n`);
    }
  } finally {
    // A running sampler would keep the driver alive after the server has gone.
    pss?.stop();
    if (server) stop(server);
  }
}

function stop(pid: number): void {
  try {
    process.kill(pid, 'SIGTERM');
  } catch (e) {
    // Gone already (it died on its own): nothing is left to stop.
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}
