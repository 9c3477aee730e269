namespace Snapper.Tests.Infrastructure;

/// <summary>Waits for a condition on the runtime's internals, failing with its description instead of hanging.</summary>
public static class Poll
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(20);

    public static async Task Until(Func<bool> condition, string what, TimeSpan? patience = null)
    {
        var until = DateTime.UtcNow + (patience ?? Patience);
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < until, $"timed out waiting until {what}");
            await Task.Delay(5);
        }
    }

    public static async Task Until(Func<Task<bool>> condition, string what)
    {
        var until = DateTime.UtcNow + Patience;
        while (!await condition())
        {
            Assert.True(DateTime.UtcNow < until, $"timed out waiting until {what}");
            await Task.Delay(5);
        }
    }
}
