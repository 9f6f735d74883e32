// A real SMTP server (the smtp-server package) on a loopback port, as its own process: every mail it accepts is
// written to stdout as one JSON line {from, to, raw}. With SMTP_SINK_FAIL=1 it refuses every mail (a failing server).
// Optional AUTH: SMTP_SINK_USER / SMTP_SINK_PASSWORD.
import { SMTPServer } from 'smtp-server';

const port = Number(process.argv[2]);
const fail = process.env.SMTP_SINK_FAIL === '1';
const user = process.env.SMTP_SINK_USER;
const server = new SMTPServer({
  secure: false,
  disabledCommands: user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
  allowInsecureAuth: true,
  authOptional: !user,
  logger: false,
  size: 1024 * 1024,
  onAuth(auth, _session, callback) {
    if (auth.username === user && auth.password === process.env.SMTP_SINK_PASSWORD) return callback(null, { user });
    return callback(new Error('Invalid username or password'));
  },
  onData(stream, session, callback) {
    const chunks = [];
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('end', () => {
      if (fail) return callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }));
      const raw = Buffer.concat(chunks).toString('utf8');
      const to = session.envelope.rcptTo.map((r) => r.address);
      process.stdout.write(JSON.stringify({ from: session.envelope.mailFrom.address, to, raw }) + '\n');
      callback();
    });
  },
});
server.listen(port, '127.0.0.1', () => process.stdout.write(JSON.stringify({ listening: port }) + '\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
