using System.Text.Json;

namespace TpcC.Actors;

/// <summary>
/// Deep copies of actor states for the read methods: a read returns the committed state itself,
/// which must not leak to a caller that could change it or keep it past the transaction.
/// </summary>
internal static class StateCopy
{
    public static T Of<T>(T state) => JsonSerializer.Deserialize<T>(JsonSerializer.SerializeToUtf8Bytes(state))!;
}
