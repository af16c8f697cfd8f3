// Preloaded (node --import) into each measured child: at exit, writes the process's own CPU time
// (getrusage, every thread, microseconds) and its peak resident set (bytes) to file descriptor 3 for the
// bench to read.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  const { userCPUTime, systemCPUTime, maxRSS } = process.resourceUsage();
  writeSync(3, JSON.stringify({ cpuUs: userCPUTime + systemCPUTime, maxRssBytes: maxRSS * 1024 }));
});
