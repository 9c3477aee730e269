namespace Snapper;

/// <summary>The two transaction modes of Snapper (§3.1).</summary>
[GenerateSerializer]
public enum TxnMode
{
    /// <summary>Actor transaction: actors discovered while running, strict 2PL with wait-die, 2PC.</summary>
    Act = 0,

    /// <summary>Pre-declared actor transaction: deterministic batches ordered by the coordinator ring.</summary>
    Pact = 1,
}
