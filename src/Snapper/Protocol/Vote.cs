namespace Snapper.Protocol;

/// <summary>A participant's answer to Prepare.</summary>
[GenerateSerializer]
internal enum Vote : byte
{
    /// <summary>Prepared and logged; will commit or abort as told.</summary>
    Yes = 0,

    /// <summary>Wrote nothing: released its locks and forgot the transaction (no phase two).</summary>
    ReadOnly = 1,

    /// <summary>Does not know the transaction (it aborted it) or could not log: the transaction must abort.</summary>
    No = 2,
}
