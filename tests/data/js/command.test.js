const commander = require('../');

function expectCommanderError(err, exitCode, code, message) {
  expect(err).toBeInstanceOf(commander.CommanderError);
  expect(err.exitCode).toBe(exitCode);
  expect(err.message).toBe(message);
}

describe('.exitOverride', () => {
  test('when excess argument then throw', () => {
    const program = new commander.Command();
    let caughtErr;
    try {
      program.parse(['node', 'test', 'excess']);
    } catch (err) {
      caughtErr = err;
    }
    expectCommanderError(caughtErr, 1, 'commander.excessArguments', 'error: too many arguments');
  });

  test('throws on a clash', () => {
    const program = new commander.Command();
    program.option('-c, --cheese');
    expect(() => program.option('--cheese')).toThrow('clash');
  });
});
