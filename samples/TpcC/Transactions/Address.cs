namespace TpcC.Transactions;

/// <summary>A street address, as Payment shows it for the warehouse, district and customer.</summary>
[GenerateSerializer]
public sealed record Address(string Street1, string Street2, string City, string State, string Zip);
