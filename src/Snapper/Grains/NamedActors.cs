using System.Collections.Concurrent;
using System.Reflection;
using Orleans.Serialization.Invocation;

namespace Snapper.Grains;

/// <summary>
/// The actors a transaction's first call names in its arguments: an <see cref="ActorId"/>, a
/// collection of them, or a property of either kind on an argument (one level, as in
/// <c>Transfer(ctx, to, amount)</c> or <c>MultiTransfer(ctx, new(amount, recipients))</c>). A body
/// whose actors come in its input calls exactly these, so a PACT run in its place can declare them
/// before it starts (Calvin's OLLP, where the input already names the access set).
/// </summary>
internal static class NamedActors
{
    /// <summary>More named actors than this and none are declared: a list to choose from, not to call.</summary>
    public const int Most = 32;

    // Per argument type, its properties that hold actor ids (empty for most types).
    private static readonly ConcurrentDictionary<Type, PropertyInfo[]> Holders = new();

    /// <summary>The arguments of <paramref name="request"/> after its first (the transaction's context).</summary>
    public static IEnumerable<object?> AfterContext(IInvokable request)
    {
        for (var i = 1; i < request.GetArgumentCount(); i++)
        {
            yield return request.GetArgument(i);
        }
    }

    /// <summary>
    /// <paramref name="declared"/> plus a call on each transactional actor <paramref name="arguments"/>
    /// name, per time named, except the actors it declares already; <paramref name="declared"/>
    /// alone if they name more than <see cref="Most"/>.
    /// </summary>
    public static AccessSet Declare(AccessSet declared, IEnumerable<object?> arguments, Func<ActorId, bool> transactional)
    {
        var named = new List<ActorId>();
        foreach (var argument in arguments)
        {
            if (!Collect(argument, named))
            {
                return declared;
            }
        }

        var declaring = declared;
        foreach (var actor in named)
        {
            if (declared.CallsOn(actor) == 0 && IsTransactional(actor, transactional))
            {
                declaring = declaring.And(actor);
            }
        }

        return declaring;
    }

    // False once more than Most are named.
    private static bool Collect(object? argument, List<ActorId> named)
    {
        switch (argument)
        {
            case null or string:
                return true;
            case ActorId actor:
                return Add(actor, named);
            case IEnumerable<ActorId> actors:
                foreach (var actor in actors)
                {
                    if (!Add(actor, named))
                    {
                        return false;
                    }
                }

                return true;
        }

        foreach (var holder in Holders.GetOrAdd(argument.GetType(), HoldersOf))
        {
            var value = holder.GetValue(argument);
            if (value is ActorId actor ? !Add(actor, named) : value is IEnumerable<ActorId> actors && !actors.All(a => Add(a, named)))
            {
                return false;
            }
        }

        return true;
    }

    private static bool Add(ActorId actor, List<ActorId> named)
    {
        if (!actor.IsDefault)
        {
            named.Add(actor);
        }

        return named.Count <= Most;
    }

    private static PropertyInfo[] HoldersOf(Type type) =>
        type.IsPrimitive || type.IsEnum
            ? []
            : Array.FindAll(type.GetProperties(BindingFlags.Public | BindingFlags.Instance), p =>
                p.CanRead && p.GetIndexParameters().Length == 0 &&
                (p.PropertyType == typeof(ActorId) || typeof(IEnumerable<ActorId>).IsAssignableFrom(p.PropertyType)));

    private static bool IsTransactional(ActorId actor, Func<ActorId, bool> transactional)
    {
        try
        {
            return transactional(actor);
        }
        catch (SnapperException)
        {
            return false; // names no actor interface loaded here: not one the body can call
        }
    }
}
