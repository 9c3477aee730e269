using System.Reflection;
using Snapper.Coordination;

namespace Snapper.Tests.Architecture;

/// <summary>
/// The coordinator's rooms (<see cref="TokenRing"/>, <see cref="BatchPipeline"/>, <see cref="Cascades"/>)
/// own their state: every field of each is private, so another room can reach it only through a
/// method.
/// </summary>
public sealed class CoordinatorRoomTests
{
    private const BindingFlags Fields = BindingFlags.Instance | BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly;

    [Theory]
    [InlineData(typeof(TokenRing))]
    [InlineData(typeof(BatchPipeline))]
    [InlineData(typeof(Cascades))]
    public void A_room_keeps_its_fields_to_itself(Type room)
    {
        var shared = room.GetFields(Fields).Where(f => !f.IsPrivate).Select(f => f.Name).ToList();

        Assert.True(shared.Count == 0, $"{room.Name} exposes field(s) {string.Join(", ", shared)}");
    }
}
