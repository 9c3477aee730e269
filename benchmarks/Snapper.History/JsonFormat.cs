using System.Text.Encodings.Web;
using System.Text.Json;

namespace Snapper.History;

/// <summary>How the history and dump files write JSON: compact, unescaped (plain files, never embedded in HTML).</summary>
internal static class JsonFormat
{
    public static readonly JsonWriterOptions WriterOptions = new()
    {
        Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
        Indented = false,
    };
}
