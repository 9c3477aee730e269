using System.Text.Json;
using System.Text.Json.Serialization;

namespace Snapper.LoadGen.Reporting;

/// <summary>Writes a <see cref="LoadGenReport"/> as indented camelCase JSON (the report contract README describes).</summary>
public static class JsonReport
{
    /// <summary>The serializer settings of the report; enums are written as camelCase names.</summary>
    public static JsonSerializerOptions SerializerOptions { get; } = new(JsonSerializerDefaults.Web)
    {
        WriteIndented = true,
        Converters = { new JsonStringEnumConverter(JsonNamingPolicy.CamelCase) },
        DefaultIgnoreCondition = JsonIgnoreCondition.Never,
    };

    /// <summary>The report as JSON text.</summary>
    public static string Serialize(LoadGenReport report) => JsonSerializer.Serialize(report, SerializerOptions);

    /// <summary>Writes the report to <paramref name="path"/>, creating its folder if needed.</summary>
    public static async Task WriteAsync(string path, LoadGenReport report, CancellationToken cancellationToken)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        var folder = Path.GetDirectoryName(Path.GetFullPath(path));
        if (!string.IsNullOrEmpty(folder))
        {
            Directory.CreateDirectory(folder);
        }

        await using var stream = File.Create(path);
        await JsonSerializer.SerializeAsync(stream, report, SerializerOptions, cancellationToken);
    }
}
