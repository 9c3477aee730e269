namespace TpcC.Transactions;

/// <summary>
/// How Payment and OrderStatus name their customer: by C_ID, or by C_LAST (§2.5.2.2: of the
/// customers with that name, sorted by C_FIRST, the one at position ⌈n/2⌉).
/// </summary>
[GenerateSerializer]
public sealed record CustomerSelector
{
    private CustomerSelector(int? id, string? lastName)
    {
        Id = id;
        LastName = lastName;
    }

    /// <summary>C_ID, when selecting by id.</summary>
    [Id(0)]
    public int? Id { get; }

    /// <summary>C_LAST, when selecting by last name.</summary>
    [Id(1)]
    public string? LastName { get; }

    /// <summary>Selects customer <paramref name="id"/>.</summary>
    public static CustomerSelector ById(int id) => new(id, null);

    /// <summary>Selects by last name.</summary>
    public static CustomerSelector ByLastName(string lastName)
    {
        ArgumentException.ThrowIfNullOrEmpty(lastName);
        return new(null, lastName);
    }

    /// <inheritdoc />
    public override string ToString() => Id is { } id ? $"C_ID {id}" : $"C_LAST {LastName}";
}
