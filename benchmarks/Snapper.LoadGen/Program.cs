using System.Diagnostics;
using Snapper.LoadGen;

// Ctrl+C stops issuing, drains the transactions in flight and still reports. A second Ctrl+C
// quits at once, but only a deliberate one: `timeout -s INT` signals the child and then its whole
// process group, so one interrupt can arrive twice within microseconds.
var repeatWindow = TimeSpan.FromSeconds(1);
long firstInterrupt = 0;
using var interrupt = new CancellationTokenSource();
Console.CancelKeyPress += (_, e) =>
{
    if (interrupt.IsCancellationRequested && Stopwatch.GetElapsedTime(Interlocked.Read(ref firstInterrupt)) > repeatWindow)
    {
        return; // not cancelled: the runtime ends the process
    }

    e.Cancel = true;
    if (Interlocked.CompareExchange(ref firstInterrupt, Stopwatch.GetTimestamp(), 0) == 0)
    {
        Console.Error.WriteLine("Ctrl+C: stopping, waiting for the transactions in flight (Ctrl+C again quits at once).");
        interrupt.Cancel();
    }
};

return await Runner.MainAsync(args, Console.Out, Console.Error, interrupt.Token);
